//===- loomc.cpp - The Loom compiler --------------------------------------===//

#include "loom/Driver/Driver.h"

int main(int argc, char **argv) { return loom::driver::loomcMain(argc, argv); }
