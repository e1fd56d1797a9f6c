/*===- TestProgramUndefined.c - A program needing a missing kernel --------===*\
|*                                                                            *|
|* Imports a kernel no runtime provides, as an artifact compiled for a newer  *|
|* runtime would: loading it must fail with the dynamic linker's message.     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

void loom_kernel_from_the_future(void **buffers);

void loom_entry(void **buffers) { loom_kernel_from_the_future(buffers); }
