import Foundation
import StorekeeperTestSupport
import Testing

@testable import StorekeeperCLI

@Suite("RevenueCat export parsing")
struct RevenueCatExportTests {
    /// Writes `text` to a fresh file (gzip-compressed with the system's gzip when asked).
    static func file(_ text: String, gzip: Bool = false, name: String = "export.csv") async throws -> URL {
        let directory = try makeTemporaryDirectory()
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        guard gzip else { return url }
        let done = try await ChildProcess.run("/usr/bin/gzip", ["-n", url.path])
        #expect(done.status == 0)
        return URL(fileURLWithPath: url.path + ".gz")
    }

    static func entries(_ url: URL) throws -> (RevenueCatExport.Format, [RevenueCatExport.Entry]) {
        var export = try RevenueCatExport(path: url.path)
        var entries: [RevenueCatExport.Entry] = []
        while let entry = try export.next() { entries.append(entry) }
        return (export.format, entries)
    }

    static let header =
        "rc_original_app_user_id;rc_last_seen_app_user_id_alias;product_identifier;start_time;end_time;store;is_sandbox;refunded_at;original_store_transaction_id;store_transaction_id;entitlement_identifiers"

    @Test("a semicolon export: header by name, quoted fields holding ; and \"\" and a line break, both entitlement forms, other stores kept as rows")
    func semicolonExport() async throws {
        let text = #"""
            \#(Self.header)
            alice;alice-login;premium.monthly;2026-01-01 08:27:06;2026-02-01 08:27:06;app_store;false;;1000001;1000002;"[""premium"",""pro""]"
            "bob; the builder";"say ""hi""";premium.monthly;2026-01-01 08:27:06;;app_store;t;2026-01-03 00:00:00;1000003;1000003;{premium}
            carol;carol;web;2026-01-01 08:27:06;;stripe;false;;sub_1;in_1;
            "dave
            smith";dave;coins;2026-01-01 08:27:06.250;;app_store;false;;1000004;1000004;

            """#
        let (format, entries) = try Self.entries(try await Self.file(text))
        #expect(format == .scheduledExport)
        let rows = entries.compactMap { if case .row(let row) = $0 { row } else { nil } }
        #expect(rows.count == 4, "\(entries)")
        #expect(rows[0].appUserId == "alice" && rows[0].aliases == ["alice-login"] && rows[0].entitlements == ["premium", "pro"])
        #expect(rows[0].originalTransactionId == "1000001" && rows[0].transactionId == "1000002" && rows[0].isSandbox == false)
        #expect(rows[0].startTime == Date(timeIntervalSince1970: 1_767_256_026))
        #expect(rows[1].appUserId == "bob; the builder" && rows[1].aliases == ["say \"hi\""] && rows[1].entitlements == ["premium"])
        #expect(rows[1].endTime == nil && rows[1].refundedAt != nil && rows[1].isSandbox == true)
        #expect(rows[2].store == "stripe" && !rows[2].isAppStore && rows[2].entitlements == nil)
        #expect(rows[3].appUserId == "dave\nsmith" && rows[3].line == 5 && rows[3].startTime?.timeIntervalSince1970 == 1_767_256_026.25)
    }

    @Test("a comma export with CRLF lines reads the same as a semicolon one; a byte order mark is ignored")
    func commaExport() async throws {
        let text =
            "\u{FEFF}" + Self.header.replacingOccurrences(of: ";", with: ",") + "\r\n"
            + "alice,alice,premium.monthly,2026-01-01T08:27:06Z,2026-02-01 08:27:06,app_store,false,,1000001,1000001,\"[\"\"premium\"\"]\"\r\n"
        let (format, entries) = try Self.entries(try await Self.file(text))
        #expect(format == .scheduledExport)
        guard case .row(let row)? = entries.first else {
            Issue.record("\(entries)")
            return
        }
        #expect(entries.count == 1)
        #expect(row.appUserId == "alice" && row.aliases.isEmpty && row.entitlements == ["premium"] && row.originalTransactionId == "1000001")
        #expect(row.endTime == Date(timeIntervalSince1970: 1_769_934_426))
    }

    @Test("a gzip export is recognized by its magic bytes, whatever its name, and read in chunks")
    func gzipExport() async throws {
        var text = Self.header + "\n"
        for index in 0..<20_000 {
            text +=
                "user-\(index);user-\(index);premium.monthly;2026-01-01 08:27:06;2026-02-01 08:27:06;app_store;false;;\(5_000_000 + index);\(5_000_000 + index);\n"
        }
        let url = try await Self.file(text, gzip: true, name: "export.bin")
        let (format, entries) = try Self.entries(url)
        #expect(format == .scheduledExport)
        #expect(entries.count == 20_000)
        guard case .row(let last)? = entries.last else {
            Issue.record("no rows")
            return
        }
        #expect(last.appUserId == "user-19999" && last.line == 20_001)
    }

    @Test("a gzip file cut short is unreadable, not an empty export")
    func truncatedGzip() async throws {
        var text = Self.header + "\n"
        for index in 0..<5_000 { text += "user-\(index);;p;;;app_store;;;\(index + 1);;\n" }
        let url = try await Self.file(text, gzip: true)
        let data = try Data(contentsOf: url)
        try data.prefix(data.count / 2).write(to: url)
        #expect(throws: RevenueCatExport.Unreadable.self) { _ = try Self.entries(url) }
    }

    @Test("malformed rows are reported with their line and the rest is read")
    func malformedRows() async throws {
        let text = #"""
            \#(Self.header)
            alice;;premium.monthly;2026-01-01 08:27:06;;app_store;false;;1000001;1000001;
            ;;premium.monthly;2026-01-01 08:27:06;;app_store;false;;1000002;1000002;
            bob;;premium.monthly;yesterday;;app_store;false;;1000003;1000003;
            carol;;premium.monthly;2026-01-01 08:27:06;;app_store;false;;GPA.1;1000004;
            dave;;too;few;fields
            erin;;p"q;2026-01-01 08:27:06;;app_store;false;;1000005;1000005;
            frank;;premium.monthly;2026-01-01 08:27:06;;app_store;false;;1000006;1000006;"open
            """#
        let (_, entries) = try Self.entries(try await Self.file(text))
        let malformed = entries.compactMap { if case .malformed(let bad) = $0 { bad } else { nil } }
        #expect(malformed.map(\.line) == [3, 4, 5, 6, 7, 8], "\(malformed)")
        #expect(malformed[0].reason.contains("rc_original_app_user_id"))
        #expect(malformed[1].reason.contains("start_time"))
        #expect(malformed[2].reason.contains("original_store_transaction_id"))
        #expect(malformed[5].reason.contains("quote"))
        #expect(entries.count == 7)
    }

    @Test("a plain list: app user id, transaction id and |-separated aliases, with no header")
    func plainList() async throws {
        let text = "alice,1000001,alice@example.com|alice-old\nbob,1000002\n\nbob,not-an-id\ncarol\n"
        let (format, entries) = try Self.entries(try await Self.file(text))
        #expect(format == .plainList)
        #expect(entries.count == 4)
        guard case .row(let alice) = entries[0], case .row(let bob) = entries[1] else {
            Issue.record("\(entries)")
            return
        }
        #expect(alice.aliases == ["alice@example.com", "alice-old"] && alice.originalTransactionId == "1000001" && alice.isAppStore)
        #expect(bob.aliases.isEmpty && bob.originalTransactionId == "1000002")
        #expect(entries[2] == .malformed(RevenueCatExport.Malformed(line: 4, reason: "not-an-id is not a transaction id")))
        if case .malformed(let bad) = entries[3] { #expect(bad.line == 5) } else { Issue.record("\(entries[3])") }
    }

    @Test("app user ids are exact bytes: NFC and NFD spellings of one name are two customers, each with its own chain")
    func exactBytes() async throws {
        let text = "zo\u{E9},1000001\nzoe\u{301},1000002\nzo\u{E9},1000003\n"
        let plan = try RevenueCatImportPlan.read(path: try await Self.file(text).path)
        #expect(plan.customers.count == 2)
        #expect(plan.customers.map { Array($0.appUserId.utf8) } == [Array("zo\u{E9}".utf8), Array("zoe\u{301}".utf8)])
        #expect(plan.customers.map { $0.chains } == [["1000001", "1000003"], ["1000002"]])
        #expect(plan.contested.isEmpty)
    }

    @Test("an empty file is unreadable")
    func emptyFile() async throws {
        let url = try await Self.file("\n \n")
        #expect(throws: RevenueCatExport.Unreadable.self) { _ = try Self.entries(url) }
    }

    @Test("dates round-trip through the export's form, before and after 1970")
    func dates() {
        for seconds in [0.0, 1_767_256_026, -86_400 * 365.0, 4_102_444_800] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(RevenueCatExport.date(RevenueCatExport.format(date)) == date)
        }
        #expect(RevenueCatExport.date("2026-13-01 00:00:00") == nil)
        #expect(RevenueCatExport.date("2026-01-01 00:00:00+02:00") == nil)
    }
}
