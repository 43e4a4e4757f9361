/* The ABI headers are plain C: a C compiler takes them, with the layout checks. */
#include "aoe/abi/aoe.h"

int aoe_abi_is_c(void) { return AOE_SDK_VERSION_MAJOR; }
