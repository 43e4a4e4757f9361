/* SPDX-License-Identifier: Apache-2.0 */
/* The SDK version a plugin is built against and a host is built with. */
#ifndef AOE_ABI_VERSION_H
#define AOE_ABI_VERSION_H

/* A host of M.m loads plugins of M.n with n <= m; every other pairing is refused. */
#define AOE_SDK_VERSION_MAJOR 1
#define AOE_SDK_VERSION_MINOR 6

#endif
