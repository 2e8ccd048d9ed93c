import Foundation
import Testing
import SessionVaultTestSupport

/// `verify --json` findings had `"page": null, "table": null` while the text named both (damage the
/// open met first was reported from its words alone). Every page of a real vault is damaged in turn
/// (each table's b-tree, the indexes, an overflow page, the free pages, page 1) and every finding
/// must say in JSON what its text says.
@Suite("verify: text and JSON name the same page and table")
struct VerifyFindingPlaceTests {
    /// A token response whose user metadata is `size` bytes: a session row that overflows.
    static func response(refresh: String, metadataSize: Int) -> Data {
        let notes = String(repeating: "n", count: metadataSize)
        return Data(
            """
            {"access_token":"access-\(refresh)","token_type":"bearer","expires_in":3600,"refresh_token":"\(refresh)",
             "user":{"id":"user-123","app_metadata":{"tenant_id":"tenant-9"},"user_metadata":{"notes":"\(notes)"}}}
            """.utf8)
    }

    /// What the stock shell says of the vault's layout: root page by object, free pages, pages.
    struct Layout {
        var roots: [String: (table: String, page: Int)] = [:]
        var freePages = 0
        var pageCount = 0
    }

    static func layout(of vault: CLIVault) async throws -> Layout {
        let recipe = try await vault.run(["export-key"])
        let sqlcipher = try #require(CLI.tool("sqlcipher"))
        let script = recipe.stdout + "SELECT name, tbl_name, rootpage FROM sqlite_master WHERE rootpage > 0;\nPRAGMA freelist_count;\nPRAGMA page_count;\n"
        let shell = try await CLI.spawn(sqlcipher, [vault.path], stdin: Data(script.utf8))
        let lines = shell.stdout.split(separator: "\n").filter { $0 != "ok" }.map(String.init)
        var layout = Layout()
        for line in lines.dropLast(2) {
            let parts = line.split(separator: "|").map(String.init)
            if parts.count == 3, let page = Int(parts[2]) { layout.roots[parts[0]] = (parts[1], page) }
        }
        layout.freePages = Int(lines.dropLast().last ?? "") ?? 0
        layout.pageCount = Int(lines.last ?? "") ?? 0
        return layout
    }

    /// The page and the table a finding's words name: `page 5`, `part of table sessions` (for an
    /// index, `index … of table sessions`: the table; "no table or index" names none).
    static func named(in detail: String) -> (page: Int?, table: String?) {
        let page = detail.firstMatch(of: #/page ([0-9]+)/#).flatMap { Int($0.1) }
        let table = detail.matches(of: #/of table ([A-Za-z_][A-Za-z0-9_]*)/#).last.map { String($0.1) }
        return (page, table)
    }

    @Test func everyDamagedPageIsNamedAlikeInTextAndJSON() async throws {
        // A session row with overflow pages, and free pages: a larger row replaced by a smaller one.
        let pristine = CLIVault()
        for (refresh, size) in [("\(Fixtures.refreshMarker)-big", 12_000), ("\(Fixtures.refreshMarker)-medium", 6000)] {
            let imported = try await pristine.run(["import"], ["--now", Fixtures.signIn], stdin: Self.response(refresh: refresh, metadataSize: size))
            #expect(imported.status == 0, "\(imported.stderr)")
        }
        let layout = try await Self.layout(of: pristine)
        #expect(layout.freePages > 0, "the replaced row left free pages")
        #expect(layout.pageCount > layout.roots.count + 1 + layout.freePages, "some pages are neither roots nor free: overflow")
        let roots = Set(layout.roots.values.map(\.page))

        var coveredTables: Set<String> = [], sawFreePage = false, sawOverflow = false, sawIndex = false
        for page in 1...layout.pageCount {
            let damaged = CLIVault()
            for suffix in ["", "-header"] { try FileManager.default.copyItem(atPath: pristine.path + suffix, toPath: damaged.path + suffix) }
            try FileManager.default.copyItem(atPath: pristine.keyPath, toPath: damaged.keyPath)
            try await damaged.damageDatabase(at: UInt64((page - 1) * 4096 + 500))

            let json = try await damaged.run(["verify"], ["--json"])
            let text = try await damaged.run(["verify"])
            #expect(json.status == 1 && text.status == 1, "page \(page): damage found")
            #expect(!json.leaksToken && !text.leaksToken)
            let findings = try #require(json.json?["findings"] as? [[String: Any]], "page \(page)")
            #expect(!findings.isEmpty, "page \(page)")
            for finding in findings {
                let detail = finding["detail"] as? String ?? ""
                let page = finding["page"] as? Int, table = finding["table"] as? String
                let words = Self.named(in: detail)
                if let named = words.page { #expect(page == named, "page \(named) named in \"\(detail)\" but JSON has \(String(describing: page))") }
                if let named = words.table { #expect(table == named, "table \(named) named in \"\(detail)\" but JSON has \(String(describing: table))") }
                // The text row of this finding (its detail is one line) shows the same place in its
                // WHERE column, the text before the detail.
                let row = try #require(text.stdout.split(separator: "\n").first { $0.contains(detail) }, "no text row for \"\(detail)\"")
                let whereColumn = String(row[..<(row.range(of: detail)?.lowerBound ?? row.endIndex)])
                if let page { #expect(whereColumn.contains("page \(page)"), "text WHERE of \"\(detail)\": \(whereColumn)") }
                if let table { #expect(whereColumn.contains(table), "text WHERE of \"\(detail)\": \(whereColumn)") }
                if let table, finding["page"] as? Int == page { coveredTables.insert(table) }
            }
            let first = findings[0]
            if (first["detail"] as? String)?.contains("free page") == true { sawFreePage = true }
            if !roots.contains(page), page != 1, first["table"] as? String == "sessions", first["page"] as? Int == page { sawOverflow = true }
            if let index = layout.roots["sqlite_autoindex_sessions_1"], index.page == page {
                sawIndex = first["table"] as? String == "sessions" && first["page"] as? Int == page
            }
        }
        #expect(coveredTables.isSuperset(of: ["sessions", "vault_state", "audit_log", "schema_migrations"]), "\(coveredTables)")
        #expect(sawIndex, "the sessions index's page is named with its table")
        #expect(sawOverflow, "an overflow page of the session row is named with its table")
        #expect(sawFreePage, "a free page is named as free")
    }
}
