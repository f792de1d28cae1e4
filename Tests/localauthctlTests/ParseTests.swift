import Testing
@testable import localauthctl
