#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard normal variates by Marsaglia and Tsang's ziggurat (128 layers), fed by SplitMix64.
///
/// Exact (rejection sampling, with the tail beyond r drawn by Marsaglia's method); about ten times faster than
/// Box–Muller because nearly every variate costs one 64-bit draw and one compare. The layer index and the
/// value come from separate bits of the draw, which avoids the correlation of the original SHR3 version.
struct Ziggurat {
  private var state: UInt64
  private let tables: Tables
  private static let r = 3.442619855899

  /// Creates a generator from a seed.
  init(seed: UInt64) {
    state = seed
    tables = Tables()
  }

  /// The layer tables, kept behind pointers so the fast path does no bounds or uniqueness checks.
  private final class Tables {
    let kn = UnsafeMutablePointer<UInt32>.allocate(capacity: 128)
    let wn = UnsafeMutablePointer<Double>.allocate(capacity: 128)
    let fn = UnsafeMutablePointer<Double>.allocate(capacity: 128)

    init() {
    let m1 = 2147483648.0
    var dn = Ziggurat.r
    var tn = dn
    let vn = 9.91256303526217e-3
    let q = vn / exp(-0.5 * dn * dn)
    kn[0] = UInt32((dn / q) * m1)
    kn[1] = 0
    wn[0] = q / m1
    wn[127] = dn / m1
    fn[0] = 1
    fn[127] = exp(-0.5 * dn * dn)
    for i in stride(from: 126, through: 1, by: -1) {
      dn = (-2 * log(vn / dn + exp(-0.5 * dn * dn))).squareRoot()
      kn[i + 1] = UInt32((dn / tn) * m1)
      tn = dn
      fn[i] = exp(-0.5 * dn * dn)
      wn[i] = dn / m1
    }
    }

    deinit {
      kn.deallocate()
      wn.deallocate()
      fn.deallocate()
    }
  }

  /// The next SplitMix64 word.
  @inline(__always) private mutating func nextWord() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Fills `buffer` with standard normal variates, two from each 64-bit draw.
  ///
  /// Each half of a draw gives the layer index (its low 7 bits) and a signed 25-bit value (its high bits),
  /// which is finer than a Float's mantissa; the tables are scaled to match.
  mutating func fill(_ buffer: UnsafeMutableBufferPointer<Float>) {
    let kn = tables.kn
    let wn = tables.wn
    var i = 0
    while i < buffer.count {
      var word = nextWord()
      for _ in 0..<2 where i < buffer.count {
        let half = UInt32(truncatingIfNeeded: word)
        word >>= 32
        let iz = Int(half & 127)
        let hz = Int32(bitPattern: half) >> 7
        buffer[i] = hz.magnitude < kn[iz] >> 7 ? Float(Double(hz) * wn[iz] * 128) : Float(slow(hz << 7, iz))
        i += 1
      }
    }
  }

  /// A uniform value in (0, 1).
  @inline(__always) private mutating func uniform() -> Double {
    (Double(nextWord() >> 11) + 0.5) * (1.0 / 9007199254740992.0)
  }

  /// One standard normal variate.
  @inline(__always) mutating func next() -> Double {
    let word = nextWord()
    let hz = Int32(truncatingIfNeeded: word >> 32)
    let iz = Int(word & 127)
    if hz.magnitude < tables.kn[iz] { return Double(hz) * tables.wn[iz] }
    return slow(hz, iz)
  }

  /// The rare case: the base strip's tail, or a wedge between layers.
  private mutating func slow(_ first: Int32, _ firstLayer: Int) -> Double {
    let kn = tables.kn
    let wn = tables.wn
    let fn = tables.fn
    var hz = first
    var iz = firstLayer
    while true {
      let x = Double(hz) * wn[iz]
      if iz == 0 {
        var tail = 0.0
        var y = 0.0
        repeat {
          tail = -log(uniform()) / Self.r
          y = -log(uniform())
        } while y + y < tail * tail
        return hz > 0 ? Self.r + tail : -Self.r - tail
      }
      if fn[iz] + uniform() * (fn[iz - 1] - fn[iz]) < exp(-0.5 * x * x) { return x }
      let word = nextWord()
      hz = Int32(truncatingIfNeeded: word >> 32)
      iz = Int(word & 127)
      if hz.magnitude < kn[iz] { return Double(hz) * wn[iz] }
    }
  }
}
