// SHA-256's compression function with the CPU's instructions, chosen at run time (see
// include/sha256_compress.h). As in crc32c_hardware.c, the extensions are enabled per function
// with `__attribute__((target(...)))`: the package builds with no compiler flags, and nothing
// here runs the instructions unless `sha256_hardware_kind()` found them.

#include "sha256_compress.h"
#include "sha256_blocks.h"
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
//
// A lane `L` is the registers of one message being hashed: L##state0 (ABEF), L##state1 (CDGH),
// L##message and the ring L##w0...L##w3. `SHA256_BLOCK(L)` runs the 64 rounds of one block;
// `SHA256_BLOCK_PAIR(A, B)` runs those of two blocks of independent messages with their steps
// interleaved: one block's rounds are a chain of dependent `sha256rnds2`, so a second chain
// beside it runs in the latency of the first (the Merkle tree hashes leaves and nodes in pairs).
#define SHA256_ROUNDS(L, group, words)                                                        \
  L##message = _mm_add_epi32(                                                                 \
      words, _mm_load_si128((const __m128i *)&sha256_round_constants[4 * (group)]));         \
  L##state1 = _mm_sha256rnds2_epu32(L##state1, L##state0, L##message);                       \
  L##message = _mm_shuffle_epi32(L##message, 0x0E);                                          \
  L##state0 = _mm_sha256rnds2_epu32(L##state0, L##state1, L##message)
// W(t+4...t+7) from W(t-12...t-9) (after msg1), W(t-3...t) = `previous`'s last word and
// `current`, and `current` itself.
#define SHA256_SCHEDULE_NEXT(current, previous, next) \
  next = _mm_sha256msg2_epu32(                         \
      _mm_add_epi32(next, _mm_alignr_epi8(current, previous, 4)), current)
// The σ0 half of the words eight ahead; after `SHA256_SCHEDULE_NEXT` read `previous`.
#define SHA256_SCHEDULE_LATER(previous, current) previous = _mm_sha256msg1_epu32(previous, current)

// Loads a block's sixteen words (big-endian) into the lane's ring and keeps its state for the
// final addition.
#define SHA256_LOAD(L, block)                                                                  \
  const __m128i L##saved0 = L##state0;                                                        \
  const __m128i L##saved1 = L##state1;                                                        \
  __m128i L##message;                                                                         \
  __m128i L##w0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)((block) + 0)), byte_swap); \
  __m128i L##w1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)((block) + 16)), byte_swap); \
  __m128i L##w2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)((block) + 32)), byte_swap); \
  __m128i L##w3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)((block) + 48)), byte_swap)
#define SHA256_FINISH(L)                              \
  L##state0 = _mm_add_epi32(L##state0, L##saved0); \
  L##state1 = _mm_add_epi32(L##state1, L##saved1)

// The sixteen groups of a block, each with the schedule work that follows it; every step
// takes the group and the ring's current, previous and next registers (the first three and
// the last three use fewer).
#define SHA256_STEP_FIRST(L, group, current, previous, next) SHA256_ROUNDS(L, group, L##current);
#define SHA256_STEP_EARLY(L, group, current, previous, next) \
  SHA256_ROUNDS(L, group, L##current);                         \
  SHA256_SCHEDULE_LATER(L##previous, L##current);
#define SHA256_STEP_MIDDLE(L, group, current, previous, next) \
  SHA256_ROUNDS(L, group, L##current);                          \
  SHA256_SCHEDULE_NEXT(L##current, L##previous, L##next);       \
  SHA256_SCHEDULE_LATER(L##previous, L##current);
#define SHA256_STEP_LATE(L, group, current, previous, next) \
  SHA256_ROUNDS(L, group, L##current);                        \
  SHA256_SCHEDULE_NEXT(L##current, L##previous, L##next);

// Every step of a block in order, each given to `STEP` with the lanes A and B.
#define SHA256_STEPS(STEP, A, B)                    \
  STEP(A, B, SHA256_STEP_FIRST, 0, w0, w3, w1)      \
  STEP(A, B, SHA256_STEP_EARLY, 1, w1, w0, w2)      \
  STEP(A, B, SHA256_STEP_EARLY, 2, w2, w1, w3)      \
  STEP(A, B, SHA256_STEP_MIDDLE, 3, w3, w2, w0)     \
  STEP(A, B, SHA256_STEP_MIDDLE, 4, w0, w3, w1)     \
  STEP(A, B, SHA256_STEP_MIDDLE, 5, w1, w0, w2)     \
  STEP(A, B, SHA256_STEP_MIDDLE, 6, w2, w1, w3)     \
  STEP(A, B, SHA256_STEP_MIDDLE, 7, w3, w2, w0)     \
  STEP(A, B, SHA256_STEP_MIDDLE, 8, w0, w3, w1)     \
  STEP(A, B, SHA256_STEP_MIDDLE, 9, w1, w0, w2)     \
  STEP(A, B, SHA256_STEP_MIDDLE, 10, w2, w1, w3)    \
  STEP(A, B, SHA256_STEP_MIDDLE, 11, w3, w2, w0)    \
  STEP(A, B, SHA256_STEP_MIDDLE, 12, w0, w3, w1)    \
  STEP(A, B, SHA256_STEP_LATE, 13, w1, w0, w2)      \
  STEP(A, B, SHA256_STEP_LATE, 14, w2, w1, w3)      \
  STEP(A, B, SHA256_STEP_FIRST, 15, w3, w2, w0)
#define SHA256_ONE(A, B, name, group, current, previous, next) \
  name(A, group, current, previous, next)
#define SHA256_TWO(A, B, name, group, current, previous, next) \
  name(A, group, current, previous, next) name(B, group, current, previous, next)

#define SHA256_BLOCK(L, block) \
  do {                         \
    SHA256_LOAD(L, block);     \
    SHA256_STEPS(SHA256_ONE, L, L) \
    SHA256_FINISH(L);          \
  } while (0)
#define SHA256_BLOCK_PAIR(A, blockA, B, blockB) \
  do {                                          \
    SHA256_LOAD(A, blockA);                     \
    SHA256_LOAD(B, blockB);                     \
    SHA256_STEPS(SHA256_TWO, A, B)              \
    SHA256_FINISH(A);                           \
    SHA256_FINISH(B);                           \
  } while (0)

// H0...H7 in memory to the lane's ABEF and CDGH registers, and back.
#define SHA256_STATE_IN(L, state)                                            \
  do {                                                                       \
    __m128i dcba = _mm_loadu_si128((const __m128i *)&(state)[0]);           \
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&(state)[4]);           \
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);                            \
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);                            \
    L##state0 = _mm_alignr_epi8(cdab, efgh, 8);    /* ABEF */                \
    L##state1 = _mm_blend_epi16(efgh, cdab, 0xF0); /* CDGH */                \
  } while (0)
#define SHA256_STATE_OUT(L, state)                                                         \
  do {                                                                                     \
    __m128i feba = _mm_shuffle_epi32(L##state0, 0x1B);                                     \
    __m128i dchg = _mm_shuffle_epi32(L##state1, 0xB1);                                     \
    _mm_storeu_si128((__m128i *)&(state)[0], _mm_blend_epi16(feba, dchg, 0xF0)); /* DCBA */ \
    _mm_storeu_si128((__m128i *)&(state)[4], _mm_alignr_epi8(dchg, feba, 8));   /* HGFE */ \
  } while (0)

__attribute__((target("sha,sse4.1"))) void sha256_compress_hardware(uint32_t state[8],
                                                                    const void *blocks,
                                                                    size_t count) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  const unsigned char *block = (const unsigned char *)blocks;
  __m128i lane_state0, lane_state1;
  SHA256_STATE_IN(lane_, state);
  for (; count > 0; count--, block += 64) {
    SHA256_BLOCK(lane_, block);
  }
  SHA256_STATE_OUT(lane_, state);
}

__attribute__((target("sha,sse4.1"))) void sha256_compress_hardware_pair(
    uint32_t state_a[8], const sha256_blocks *a, uint32_t state_b[8], const sha256_blocks *b) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i a_state0, a_state1, b_state0, b_state1;
  SHA256_STATE_IN(a_, state_a);
  SHA256_STATE_IN(b_, state_b);
  sha256_blocks_cursor cursor_a = {a, 0, 0};
  sha256_blocks_cursor cursor_b = {b, 0, 0};
  const unsigned char *block_a = sha256_blocks_next(&cursor_a);
  const unsigned char *block_b = sha256_blocks_next(&cursor_b);
  while (block_a != NULL && block_b != NULL) {
    SHA256_BLOCK_PAIR(a_, block_a, b_, block_b);
    block_a = sha256_blocks_next(&cursor_a);
    block_b = sha256_blocks_next(&cursor_b);
  }
  for (; block_a != NULL; block_a = sha256_blocks_next(&cursor_a)) {
    SHA256_BLOCK(a_, block_a);
  }
  for (; block_b != NULL; block_b = sha256_blocks_next(&cursor_b)) {
    SHA256_BLOCK(b_, block_b);
  }
  SHA256_STATE_OUT(a_, state_a);
  SHA256_STATE_OUT(b_, state_b);
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

// One message after the other: correct, not interleaved (the instructions' latency on these
// CPUs was not measured).
void sha256_compress_hardware_pair(uint32_t state_a[8], const sha256_blocks *a,
                                   uint32_t state_b[8], const sha256_blocks *b) {
  sha256_blocks_compress(sha256_compress_hardware, state_a, a);
  sha256_blocks_compress(sha256_compress_hardware, state_b, b);
}

#else

int sha256_hardware_kind(void) { return SHA256_HARDWARE_NONE; }

// No instructions on this architecture; never called by the Swift side, which checks the kind
// first, but correct all the same.
void sha256_compress_hardware(uint32_t state[8], const void *blocks, size_t count) {
  sha256_compress_portable(state, blocks, count);
}

void sha256_compress_hardware_pair(uint32_t state_a[8], const sha256_blocks *a,
                                   uint32_t state_b[8], const sha256_blocks *b) {
  sha256_blocks_compress(sha256_compress_portable, state_a, a);
  sha256_blocks_compress(sha256_compress_portable, state_b, b);
}

#endif
