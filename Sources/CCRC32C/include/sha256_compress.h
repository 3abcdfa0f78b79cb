// The SHA-256 compression function (FIPS 180-4 §6.2.2) with the CPU's own instructions where it
// has them: the SHA extensions on x86-64 (SHA-NI), the Armv8 SHA2 instructions on arm64, and a
// portable C loop otherwise. The Events module's `SHA256` keeps the message buffering, padding
// and midstate in Swift and calls one of these for every 64-byte block.
#ifndef SHA256_COMPRESS_H
#define SHA256_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// No SHA-256 instructions on this CPU (or this architecture): use the portable code.
#define SHA256_HARDWARE_NONE 0
/// x86-64 with the SHA extensions and SSE4.1 (`sha256rnds2`, `sha256msg1`, `sha256msg2`).
#define SHA256_HARDWARE_X86_SHA 1
/// arm64 with the Armv8 SHA2 extension (`sha256h`, `sha256h2`, `sha256su0`, `sha256su1`).
#define SHA256_HARDWARE_ARMV8 2

/// Which SHA-256 instructions this CPU has, detected at run time (cheap, but callers cache it):
/// one of the `SHA256_HARDWARE_*` values.
int sha256_hardware_kind(void);

/// Runs the compression function over `count` consecutive 64-byte blocks at `blocks` (which may
/// be unaligned, and NULL when `count` is 0), updating the eight words H0...H7 of `state` (in
/// that order, native byte order).
///
/// Call only when `sha256_hardware_kind()` is not `SHA256_HARDWARE_NONE`: on a CPU without the
/// instructions this traps (SIGILL). On architectures with no such instructions it runs the
/// portable code, so it is correct everywhere.
void sha256_compress_hardware(uint32_t state[8], const void *blocks, size_t count);

/// The same compression in portable C, on every CPU: the fallback, and the reference the
/// hardware paths are tested against.
void sha256_compress_portable(uint32_t state[8], const void *blocks, size_t count);

/// SHA-256(`prefix` ‖ the `count` bytes at `bytes`), the whole digest with its padding, into the
/// 32 bytes at `digest`: RFC 9162's leaf hash (prefix 0x00, a log line) and node hash (prefix
/// 0x01, two hashes side by side) in one call, with no allocation. `use_hardware` non-zero runs
/// `sha256_compress_hardware` (only where `sha256_hardware_kind()` found the instructions),
/// zero the portable code.
void sha256_hash_prefixed(int use_hardware, unsigned char prefix, const void *bytes, size_t count,
                          unsigned char digest[32]);

/// RFC 9162's leaf hashes, SHA-256(0x00 ‖ line), of the lines at the start of the `length`
/// bytes at `bytes`: each line is the bytes before a `\n` (which is not hashed), and bytes after
/// the last `\n` are left. Writes 32 bytes a line at `digests`, for at most `capacity` lines.
/// The lines are numbered from `first_index`; the offset (from `bytes`) of each line whose
/// number is a multiple of `tile_width` (not 0) goes to `tile_starts` (room for
/// `capacity / tile_width + 1`), and their count to `*tile_start_count`. Returns the number of
/// lines hashed, and sets `*consumed` to the bytes they take, their `\n`s included. With the
/// CPU's instructions (`use_hardware` non-zero) the lines are hashed two at a time.
size_t sha256_leaf_hashes(int use_hardware, const void *bytes, size_t length,
                          unsigned char *digests, size_t capacity, uint64_t first_index,
                          uint64_t tile_width, int64_t *tile_starts, size_t *tile_start_count,
                          size_t *consumed);

/// RFC 9162's node hashes, SHA-256(0x01 ‖ left ‖ right), of `count` pairs of 32-byte hashes
/// laid side by side at `children` (64 bytes a pair): node `i` goes to the 32 bytes at
/// `parents + 32 i`. `parents` may be `children` (a tree level hashed over the one below).
void sha256_node_hashes(int use_hardware, const void *children, size_t count, void *parents);

#ifdef __cplusplus
}
#endif

#endif
