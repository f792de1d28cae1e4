import Testing

@testable import LocalAuthCore

/// The byte-wise /proc parsers (Evaluation/ProcessFile.swift): the fields the intent and remote-session rules read.
@Suite("Evaluation: /proc files")
struct ProcessFileTests {
  @Test func aStatLineGivesItsNameAndTheNumbersAfterIt() throws {
    let line = Array("4242 (sudo) S 4200 4242 4100 34817 -1 4194560 120 0 0 0\n".utf8)
    let stat = try #require(ProcessFile.Stat(line, count: 6))
    #expect(stat.name == "sudo")
    #expect(stat.numbers == [nil, 4200, 4242, 4100, 34817, -1])
  }

  @Test func aNameWithSpacesAndParenthesesEndsAtTheLastParenthesis() throws {
    let line = Array("7 (a) b (c)) R 1 7 7 0 0 0\n".utf8)
    let stat = try #require(ProcessFile.Stat(line, count: 2))
    #expect(stat.name == "a) b (c)")
    #expect(stat.numbers == [nil, 1])
  }

  @Test func aShortOrNamelessStatLineIsNothing() {
    #expect(ProcessFile.Stat(Array("7 (x) S 1 7\n".utf8), count: 6) == nil)
    #expect(ProcessFile.Stat(Array("7 x S 1 7 7 0 0\n".utf8), count: 2) == nil)
    #expect(ProcessFile.Stat(Array("7 )x( S 1 7 7 0 0\n".utf8), count: 2) == nil)
  }

  @Test func aFieldThatIsNotADecimalNumberIsNil() throws {
    let stat = try #require(ProcessFile.Stat(Array("7 (x) S +1 1x 99999999999 - 0\n".utf8), count: 5))
    #expect(stat.numbers == [nil, nil, nil, nil, nil])
  }

  @Test func aStatusLineGivesItsFirstNumber() {
    let status = Array("Name:\tsu\nUmask:\t0022\nTracerPid:\t0\nUid:\t1000\t0\t0\t0\nGid:\t1000\t1000\t1000\t1000\n".utf8)
    #expect(ProcessFile.statusNumber("Uid:", in: status) == 1000)
    #expect(ProcessFile.statusNumber("TracerPid:", in: status) == 0)
    #expect(ProcessFile.statusNumber("Gid:", in: status) == 1000)
  }

  @Test func aMissingOrMalformedStatusLineIsNil() {
    #expect(ProcessFile.statusNumber("Uid:", in: Array("Name:\tUid: 5\n".utf8)) == nil)
    #expect(ProcessFile.statusNumber("Uid:", in: Array("Uid:\tx 0 0 0\n".utf8)) == nil)
    #expect(ProcessFile.statusNumber("Uid:", in: Array("Uid:".utf8)) == nil)
    #expect(ProcessFile.statusNumber("Uid:", in: []) == nil)
    #expect(ProcessFile.statusNumber("TracerPid:", in: Array("Name:\ta\nTracerPid:  17".utf8)) == 17)
  }
}
