// Evidence for lsan.supp (libcurl.so): Foundation alone. One GET through URLSession.shared to the
// URL given (any local HTTP server), then a normal exit. Run with
// ASAN_OPTIONS=fast_unwind_on_malloc=0 to see whole stacks: libcurl's curl_url_set called from
// FoundationNetworking's CFURLSessionCurlHostIsEqual, never freed, and the weak side table of
// URLSession._MultiHandle.register (formWeakReference).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

guard let url = URL(string: CommandLine.arguments.dropFirst().first ?? "") else {
    FileHandle.standardError.write(Data("usage: SessionSharedRequest <url>\n".utf8))
    exit(2)
}
let (data, _) = try await URLSession.shared.data(for: URLRequest(url: url))
FileHandle.standardOutput.write(Data("got \(data.count) bytes\n".utf8))
