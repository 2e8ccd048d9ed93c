import Testing
@testable import SessionVault

/// A primary pattern matches its extended codes too; an extended pattern only itself.
@Suite("ResultCode matching: primary and extended codes")
struct ResultCodeMatchingTests {
    @Test func aPrimaryPatternMatchesItsExtendedCodesAndAnExtendedOneOnlyItself() {
        let shortRead = SQLiteError(extendedCode: .ioErrorShortRead, message: "short read")
        let fsync = SQLiteError(extendedCode: .ioErrorFsync, message: "fsync")
        #expect(ResultCode.ioError ~= shortRead)
        #expect(ResultCode.ioErrorShortRead ~= shortRead)
        #expect(!(ResultCode.ioErrorShortRead ~= fsync), "another extended code of the same primary")
        #expect(!(ResultCode.busy ~= shortRead))
        #expect(ResultCode.ioErrorShortRead.rawValue == 522, "SQLITE_IOERR_SHORT_READ as sqlite3.h defines it")
        #expect(ResultCode.ioErrorShortRead.primary == .ioError && !ResultCode.ioErrorShortRead.isPrimary)
        switch fsync.extendedCode {
        case .ioErrorShortRead: Issue.record("an extended pattern matched another extended code")
        case .ioError: break
        default: Issue.record("the primary pattern did not match its extended code")
        }
    }
}
