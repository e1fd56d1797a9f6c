//===- Interfaces.cpp - Generated interface definitions -------------------===//

#include "loom/Interfaces/Interfaces.h"
#include "loom/Interfaces/LoomEnums.h"

#include "interfaces/CostInterface.cpp.inc"
#include "interfaces/GradientInterface.cpp.inc"
#include "interfaces/LoomEnums.cpp.inc"
#include "interfaces/ShardingRuleInterface.cpp.inc"
