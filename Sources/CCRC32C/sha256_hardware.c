// SHA-256's compression function with the CPU's instructions, chosen at run time (see
// include/sha256_compress.h). As in crc32c_hardware.c, the extensions are enabled per function
// with `__attribute__((target(...)))`: the package builds with no compiler flags, and nothing
// here runs the instructions unless `sha256_hardware_kind()` found them.

#include "sha256_compress.h"
#include "sha256_constants.h"

#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>

int sha256_hardware_kind(void) {
  unsigned int eax, ebx, ecx, edx;
  // Leaf 1, ECX bit 19: SSE4.1 (which implies SSSE3's byte shuffle).
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || (ecx & (1u << 19)) == 0) {
    return SHA256_HARDWARE_NONE;
  }
  // Leaf 7, sub-leaf 0, EBX bit 29: the SHA extensions.
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) || (ebx & (1u << 29)) == 0) {
    return SHA256_HARDWARE_NONE;
  }
  return SHA256_HARDWARE_X86_SHA;
}

// The state lives in two registers as ABEF and CDGH (the order `sha256rnds2` wants). Each group
// of four rounds adds K(t) to four message words; `sha256rnds2` does two rounds with the low
// half, and again with the high half. The schedule runs three groups ahead: `sha256msg1` and
// `sha256msg2` build W(t + 16) from the four words before it, in a ring of four registers.
#define SHA256_ROUNDS(group, words)                                                           \
  message = _mm_add_epi32(                                                                    \
      words, _mm_load_si128((const __m128i *)&sha256_round_constants[4 * (group)]));         \
  state1 = _mm_sha256rnds2_epu32(state1, state0, message);                                   \
  message = _mm_shuffle_epi32(message, 0x0E);                                                \
  state0 = _mm_sha256rnds2_epu32(state0, state1, message)
// W(t+4...t+7) from W(t-12...t-9) (after msg1), W(t-3...t) = `previous`'s last word and
// `current`, and `current` itself.
#define SHA256_SCHEDULE_NEXT(current, previous, next) \
  next = _mm_sha256msg2_epu32(                         \
      _mm_add_epi32(next, _mm_alignr_epi8(current, previous, 4)), current)
// The σ0 half of the words eight ahead; after `SHA256_SCHEDULE_NEXT` read `previous`.
#define SHA256_SCHEDULE_LATER(previous, current) previous = _mm_sha256msg1_epu32(previous, current)

__attribute__((target("sha,sse4.1"))) void sha256_compress_hardware(uint32_t state[8],
                                                                    const void *blocks,
                                                                    size_t count) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  const unsigned char *block = (const unsigned char *)blocks;

  __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
  __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
  __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
  __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i state0 = _mm_alignr_epi8(cdab, efgh, 8);     // ABEF
  __m128i state1 = _mm_blend_epi16(efgh, cdab, 0xF0);  // CDGH

  for (; count > 0; count--, block += 64) {
    const __m128i saved0 = state0;
    const __m128i saved1 = state1;
    __m128i message;
    __m128i w0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 0)), byte_swap);
    __m128i w1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 16)), byte_swap);
    __m128i w2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 32)), byte_swap);
    __m128i w3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 48)), byte_swap);

    SHA256_ROUNDS(0, w0);
    SHA256_ROUNDS(1, w1);
    SHA256_SCHEDULE_LATER(w0, w1);
    SHA256_ROUNDS(2, w2);
    SHA256_SCHEDULE_LATER(w1, w2);
    SHA256_ROUNDS(3, w3);
    SHA256_SCHEDULE_NEXT(w3, w2, w0);
    SHA256_SCHEDULE_LATER(w2, w3);
    SHA256_ROUNDS(4, w0);
    SHA256_SCHEDULE_NEXT(w0, w3, w1);
    SHA256_SCHEDULE_LATER(w3, w0);
    SHA256_ROUNDS(5, w1);
    SHA256_SCHEDULE_NEXT(w1, w0, w2);
    SHA256_SCHEDULE_LATER(w0, w1);
    SHA256_ROUNDS(6, w2);
    SHA256_SCHEDULE_NEXT(w2, w1, w3);
    SHA256_SCHEDULE_LATER(w1, w2);
    SHA256_ROUNDS(7, w3);
    SHA256_SCHEDULE_NEXT(w3, w2, w0);
    SHA256_SCHEDULE_LATER(w2, w3);
    SHA256_ROUNDS(8, w0);
    SHA256_SCHEDULE_NEXT(w0, w3, w1);
    SHA256_SCHEDULE_LATER(w3, w0);
    SHA256_ROUNDS(9, w1);
    SHA256_SCHEDULE_NEXT(w1, w0, w2);
    SHA256_SCHEDULE_LATER(w0, w1);
    SHA256_ROUNDS(10, w2);
    SHA256_SCHEDULE_NEXT(w2, w1, w3);
    SHA256_SCHEDULE_LATER(w1, w2);
    SHA256_ROUNDS(11, w3);
    SHA256_SCHEDULE_NEXT(w3, w2, w0);
    SHA256_SCHEDULE_LATER(w2, w3);
    SHA256_ROUNDS(12, w0);
    SHA256_SCHEDULE_NEXT(w0, w3, w1);
    SHA256_SCHEDULE_LATER(w3, w0);
    SHA256_ROUNDS(13, w1);
    SHA256_SCHEDULE_NEXT(w1, w0, w2);
    SHA256_ROUNDS(14, w2);
    SHA256_SCHEDULE_NEXT(w2, w1, w3);
    SHA256_ROUNDS(15, w3);

    state0 = _mm_add_epi32(state0, saved0);
    state1 = _mm_add_epi32(state1, saved1);
  }

  __m128i feba = _mm_shuffle_epi32(state0, 0x1B);
  __m128i dchg = _mm_shuffle_epi32(state1, 0xB1);
  _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));  // DCBA
  _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));     // HGFE
}

#elif defined(__aarch64__) || defined(_M_ARM64)

#include <arm_neon.h>

#include "arm64_features.h"

int sha256_hardware_kind(void) {
  // Every Apple arm64 CPU has the instructions; older systems lack the sysctl name.
  return arm64_has_feature("hw.optional.arm.FEAT_SHA256", HWCAP_SHA2, 1) ? SHA256_HARDWARE_ARMV8
                                                                          : SHA256_HARDWARE_NONE;
}

// The state stays as ABCD and EFGH. Each group of four rounds adds K(t) to four message words
// and runs `sha256h`/`sha256h2`; `sha256su0`/`sha256su1` build the words four groups ahead.
__attribute__((target("+sha2"))) void sha256_compress_hardware(uint32_t state[8],
                                                               const void *blocks,
                                                               size_t count) {
  const unsigned char *block = (const unsigned char *)blocks;
  uint32x4_t state0 = vld1q_u32(&state[0]);
  uint32x4_t state1 = vld1q_u32(&state[4]);
  for (; count > 0; count--, block += 64) {
    const uint32x4_t saved0 = state0;
    const uint32x4_t saved1 = state1;
    uint32x4_t words[4];
    for (int index = 0; index < 4; index++) {
      words[index] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(block + 16 * index)));
    }
    for (int group = 0; group < 16; group++) {
      uint32x4_t scheduled =
          vaddq_u32(words[group & 3], vld1q_u32(&sha256_round_constants[4 * group]));
      if (group < 12) {
        words[group & 3] = vsha256su1q_u32(
            vsha256su0q_u32(words[group & 3], words[(group + 1) & 3]), words[(group + 2) & 3],
            words[(group + 3) & 3]);
      }
      uint32x4_t previous0 = state0;
      state0 = vsha256hq_u32(state0, state1, scheduled);
      state1 = vsha256h2q_u32(state1, previous0, scheduled);
    }
    state0 = vaddq_u32(state0, saved0);
    state1 = vaddq_u32(state1, saved1);
  }
  vst1q_u32(&state[0], state0);
  vst1q_u32(&state[4], state1);
}

#else

int sha256_hardware_kind(void) { return SHA256_HARDWARE_NONE; }

// No instructions on this architecture; never called by the Swift side, which checks the kind
// first, but correct all the same.
void sha256_compress_hardware(uint32_t state[8], const void *blocks, size_t count) {
  sha256_compress_portable(state, blocks, count);
}

#endif
