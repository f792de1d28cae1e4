import CSyscalls

// Part of the C fence (Syscalls.swift): the C library's mathematics (libm), which the standard library of
// Embedded Swift does not offer.

/// The natural logarithm (log(3)).
func naturalLogarithm(_ x: Double) -> Double { log(x) }

/// The cosine of `x` radians (cos(3)).
func cosine(_ x: Double) -> Double { cos(x) }

/// `x` to the power `y` (pow(3)).
func power(_ x: Double, _ y: Double) -> Double { pow(x, y) }
