// Evidence for lsan.supp (readBytesFromFile): Foundation alone, none of SessionVault.
// FileManager.contents(atPath:) on an empty file leaks the 4 KiB read buffer; on a one-byte file
// it leaks nothing. Expect "Direct leak of 40960 byte(s) in 10 object(s)" under
// `swiftc -sanitize=address`, with readBytesFromFile in the stack.
import Foundation

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lsan-evidence-\(getpid())").path
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
let empty = directory + "/empty", full = directory + "/full"
FileManager.default.createFile(atPath: empty, contents: nil)
FileManager.default.createFile(atPath: full, contents: Data("x".utf8))
var total = 0
for _ in 0..<10 { total += FileManager.default.contents(atPath: empty)?.count ?? 0 }
for _ in 0..<10 { total += FileManager.default.contents(atPath: full)?.count ?? 0 }
try FileManager.default.removeItem(atPath: directory)
FileHandle.standardOutput.write(Data("read \(total) bytes from 10 empty and 10 one-byte files\n".utf8))
