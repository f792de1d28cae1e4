import CSyscalls

/// The calling thread's errno, which C exposes only as a macro.
var currentErrno: Int32 { csyscalls_errno() }
