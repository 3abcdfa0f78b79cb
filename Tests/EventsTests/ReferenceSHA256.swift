/// SHA-256 written as FIPS 180-4 reads, with no regard for speed: the oracle that the optimised
/// `SHA256` is checked against on random messages of every length.
enum ReferenceSHA256 {
  static func hash(_ message: [UInt8]) -> [UInt8] {
    let constants: [UInt32] = [
      0x428A_2F98, 0x7137_4491, 0xB5C0_FBCF, 0xE9B5_DBA5, 0x3956_C25B, 0x59F1_11F1, 0x923F_82A4,
      0xAB1C_5ED5, 0xD807_AA98, 0x1283_5B01, 0x2431_85BE, 0x550C_7DC3, 0x72BE_5D74, 0x80DE_B1FE,
      0x9BDC_06A7, 0xC19B_F174, 0xE49B_69C1, 0xEFBE_4786, 0x0FC1_9DC6, 0x240C_A1CC, 0x2DE9_2C6F,
      0x4A74_84AA, 0x5CB0_A9DC, 0x76F9_88DA, 0x983E_5152, 0xA831_C66D, 0xB003_27C8, 0xBF59_7FC7,
      0xC6E0_0BF3, 0xD5A7_9147, 0x06CA_6351, 0x1429_2967, 0x27B7_0A85, 0x2E1B_2138, 0x4D2C_6DFC,
      0x5338_0D13, 0x650A_7354, 0x766A_0ABB, 0x81C2_C92E, 0x9272_2C85, 0xA2BF_E8A1, 0xA81A_664B,
      0xC24B_8B70, 0xC76C_51A3, 0xD192_E819, 0xD699_0624, 0xF40E_3585, 0x106A_A070, 0x19A4_C116,
      0x1E37_6C08, 0x2748_774C, 0x34B0_BCB5, 0x391C_0CB3, 0x4ED8_AA4A, 0x5B9C_CA4F, 0x682E_6FF3,
      0x748F_82EE, 0x78A5_636F, 0x84C8_7814, 0x8CC7_0208, 0x90BE_FFFA, 0xA450_6CEB, 0xBEF9_A3F7,
      0xC671_78F2,
    ]
    func rotateRight(_ value: UInt32, _ count: UInt32) -> UInt32 {
      (value >> count) | (value << (32 - count))
    }

    // §5.1.1: a 1 bit, zeros to 448 mod 512 bits, then the length in bits as 64 bits.
    var padded = message
    padded.append(0x80)
    while padded.count % 64 != 56 { padded.append(0) }
    let bitLength = UInt64(message.count) * 8
    for shift in stride(from: 56, through: 0, by: -8) {
      padded.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
    }

    // §5.3.3
    var hash: [UInt32] = [
      0x6A09_E667, 0xBB67_AE85, 0x3C6E_F372, 0xA54F_F53A, 0x510E_527F, 0x9B05_688C, 0x1F83_D9AB,
      0x5BE0_CD19,
    ]
    // §6.2.2
    for blockStart in stride(from: 0, to: padded.count, by: 64) {
      var schedule = [UInt32](repeating: 0, count: 64)
      for t in 0..<16 {
        for byte in 0..<4 {
          schedule[t] = schedule[t] << 8 | UInt32(padded[blockStart + 4 * t + byte])
        }
      }
      for t in 16..<64 {
        let sigma0 =
          rotateRight(schedule[t - 15], 7) ^ rotateRight(schedule[t - 15], 18)
          ^ (schedule[t - 15] >> 3)
        let sigma1 =
          rotateRight(schedule[t - 2], 17) ^ rotateRight(schedule[t - 2], 19)
          ^ (schedule[t - 2] >> 10)
        schedule[t] = sigma1 &+ schedule[t - 7] &+ sigma0 &+ schedule[t - 16]
      }
      var (a, b, c, d, e, f, g, h) = (
        hash[0], hash[1], hash[2], hash[3], hash[4], hash[5], hash[6], hash[7]
      )
      for t in 0..<64 {
        let bigSigma1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25)
        let choose = (e & f) ^ (~e & g)
        let temporary1 = h &+ bigSigma1 &+ choose &+ constants[t] &+ schedule[t]
        let bigSigma0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22)
        let majority = (a & b) ^ (a & c) ^ (b & c)
        let temporary2 = bigSigma0 &+ majority
        h = g
        g = f
        f = e
        e = d &+ temporary1
        d = c
        c = b
        b = a
        a = temporary1 &+ temporary2
      }
      for (index, value) in [a, b, c, d, e, f, g, h].enumerated() { hash[index] &+= value }
    }
    return hash.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } }
  }
}
