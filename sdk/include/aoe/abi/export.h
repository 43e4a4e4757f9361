/* SPDX-License-Identifier: Apache-2.0 */
/* Symbol visibility for the plugin entry points. */
#ifndef AOE_ABI_EXPORT_H
#define AOE_ABI_EXPORT_H

#if defined(_WIN32)
#define AOE_EXPORT __declspec(dllexport)
#else
#define AOE_EXPORT __attribute__((visibility("default")))
#endif

#endif
