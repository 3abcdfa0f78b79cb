// Whether an arm64 CPU has an optional extension, asked the way each system answers: a sysctl
// name on Apple systems, a HWCAP bit on Linux, and "no" elsewhere. Shared by crc32c_hardware.c and
// sha256_hardware.c; a private header (not in include/), compiled only on arm64.
#ifndef ARM64_FEATURES_H
#define ARM64_FEATURES_H

#include <stddef.h>

#if defined(__APPLE__)
#include <sys/sysctl.h>
#elif defined(__linux__)
#include <sys/auxv.h>
#endif

// The HWCAP bits, from <asm/hwcap.h>, for C libraries that do not define them.
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1UL << 7)
#endif
#ifndef HWCAP_SHA2
#define HWCAP_SHA2 (1UL << 6)
#endif

// 1 when the extension is there, 0 when not. `apple_name`: its `hw.optional` sysctl name;
// `linux_hwcap`: its bit in AT_HWCAP; `apple_unknown`: the answer when an Apple system does not
// know the name (an older system that names only what some of its CPUs lack).
static inline int arm64_has_feature(const char *apple_name, unsigned long linux_hwcap,
                                    int apple_unknown) {
#if defined(__APPLE__)
  (void)linux_hwcap;
  int value = 0;
  size_t size = sizeof(value);
  if (sysctlbyname(apple_name, &value, &size, NULL, 0) != 0) {
    return apple_unknown;
  }
  return value != 0;
#elif defined(__linux__)
  (void)apple_name;
  (void)apple_unknown;
  return (getauxval(AT_HWCAP) & linux_hwcap) != 0;
#else
  (void)apple_name;
  (void)linux_hwcap;
  (void)apple_unknown;
  return 0;
#endif
}

#endif
