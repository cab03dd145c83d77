import Foundation
import Logging
import StorekeeperStore
import StorekeeperTestSupport
import SubscriptionEngine
import Testing

@testable import StorekeeperCLI

/// The move from RevenueCat as an operator runs it: `storekeeper simulator serve --customers N
/// --revenuecat-export FILE` plays a population and writes RevenueCat's export of it and the
/// simulator's truth; `storekeeper import revenuecat` brings it in through the simulator's App
/// Store Server API (killed halfway, resumed, repeated); `storekeeper compare revenuecat`
/// finds nothing, then what an edited export makes differ.
@Suite("storekeeper import and compare revenuecat against a local App Store", .serialized, .timingBound, .tags(.slow), .skippedWhenFast)
struct RevenueCatImportTests {
    struct Truth: Decodable {
        struct Customer: Decodable {
            var appUserId: String
            var aliases: [String]
            var entitlements: [Entitlement]
            var unknownTransactionIds: [String]
        }

        struct Entitlement: Decodable {
            var identifier: String
            var originalTransactionId: String
        }

        var at: Date
        var rows: Int
        var customers: [Customer]
    }

    @Test(
        "every customer is found under its app user id with the simulator's truth; resumable, idempotent; compare finds what an edited export changes"
    )
    func importAndCompare() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: StorekeeperProcess.executable.path), "build the storekeeper product first")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ca = directory.appendingPathComponent("ca").path
        let export = directory.appendingPathComponent("export.csv").path
        let port = LoopbackPort.free()
        let simulator = try DeviceCommandTests.Background(
            [
                "simulator", "serve", "--port", "\(port)", "--ca", ca, "--environment", "Production", "--customers", "900", "--seed", "11",
                "--revenuecat-export", export, "--notification-url", "http://127.0.0.1:\(LoopbackPort.free())/",
            ], log: directory.appendingPathComponent("simulator.log"))
        defer { simulator.stop() }
        #expect(await simulator.wait(for: "Local App Store on"), "the simulator did not start: \(simulator.output)")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let truth = try decoder.decode(Truth.self, from: Data(contentsOf: URL(fileURLWithPath: export + ".truth.json")))
        #expect(truth.rows > 1_500, "a few thousand rows: \(truth.rows)")
        let unknown = Set(truth.customers.flatMap(\.unknownTransactionIds))
        #expect(!unknown.isEmpty && truth.customers.contains { !$0.aliases.isEmpty })
        let data = directory.appendingPathComponent("data").path
        let common = ["--config", "\(ca)/storekeeper.json", "--data-dir", data, "--app", "local"]
        let importArguments = ["import", "revenuecat"] + common + ["--file", export]

        // Killed halfway: the finished chains are in the progress file.
        let progress = export + ".progress"
        let killed = try DeviceCommandTests.Background(importArguments, log: directory.appendingPathComponent("import-1.log"))
        var finishedBeforeKill = 0
        for _ in 0..<1_200 where killed.process.isRunning {
            finishedBeforeKill = ((try? String(contentsOfFile: progress, encoding: .utf8)) ?? "").split(separator: "\n").count
            if finishedBeforeKill >= 100 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        killed.process.kill()
        killed.process.waitUntilExit()
        #expect(finishedBeforeKill >= 100, "\(killed.output)")

        // Resumed: the rest is imported; only the chains Apple does not know fail, with Apple's code.
        let started = Date()
        let resumed = try await StorekeeperProcess.run(importArguments, timeout: 600)
        let seconds = Date().timeIntervalSince(started)
        #expect(resumed.exitCode == 1, "\(resumed.standardError.suffix(500))")
        let summary = try resumed.json()
        let chains = try #require(summary["chains"] as? [String: Any])
        #expect((chains["skipped"] as? Int ?? 0) >= finishedBeforeKill)
        let failures = try #require(summary["failures"] as? [[String: Any]])
        #expect(Set(failures.compactMap { $0["originalTransactionId"] as? String }) == unknown, "\(failures)")
        #expect(failures.allSatisfy { $0["code"] as? String == "apple_error" && $0["appleErrorCode"] as? Int == 4_040_010 })
        #expect((summary["skippedByStore"] as? [String: Int])?.keys.sorted() == ["play_store", "stripe"])
        let requested = chains["requested"] as? Int ?? 0
        print("import revenuecat: \(truth.rows) rows, \(requested) chains; resumed run \(String(format: "%.1f", seconds)) s")

        // Every customer under its app user id, its aliases resolving to it, with the simulator's truth.
        let configuration = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(ca)/storekeeper.json"))) as? [String: Any]
        let app = try #require((configuration?["apps"] as? [[String: Any]])?.first)
        let catalog = try JSONDecoder().decode(Catalog.self, from: JSONSerialization.data(withJSONObject: ["products": app["products"] ?? []]))
        let location = try DatabaseLocation.resolve(databaseURL: nil, dataDirectory: data)
        let mismatches = try await SQLStore.withStore(location, logger: Logger(label: "test")) { store in
            var mismatches: [String] = []
            for customer in truth.customers {
                for alias in customer.aliases {
                    let owner = try await store.customer(appId: "local", alias: CustomerAlias(kind: .appUserId, value: alias))
                    if owner != customer.appUserId { mismatches.append("\(alias) → \(owner ?? "nobody"), not \(customer.appUserId)") }
                }
                let ledger = try await store.ledger(appId: "local", customerId: customer.appUserId)
                let state = CustomerState(history: PurchaseHistory(ledger: ledger), catalog: catalog, at: truth.at)
                let ours = state.entitlements.map(\.identifier).sorted()
                let theirs = customer.entitlements.map(\.identifier).sorted()
                if ours != theirs { mismatches.append("\(customer.appUserId): Storekeeper \(ours), simulator \(theirs)") }
            }
            return mismatches
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(truth.customers.count): \(mismatches.prefix(10))")

        // Again: nothing changes, and the summary says so.
        let again = try await StorekeeperProcess.run(importArguments, timeout: 300)
        #expect(again.exitCode == 1)
        let repeated = try again.json()
        #expect(repeated["changed"] as? Bool == false, "\(again.text)")
        #expect((repeated["chains"] as? [String: Any])?["newLedgerEntries"] as? Int == 0)
        #expect((repeated["aliases"] as? [String: Any])?["linked"] as? Int == 0)

        // Compare: the export and Storekeeper agree.
        let compareArguments = ["compare", "revenuecat"] + common
        let same = try await StorekeeperProcess.run(compareArguments + ["--file", export], timeout: 300)
        #expect(same.exitCode == 0, "\(same.text.prefix(2_000)) \(same.standardError)")
        #expect(try same.json()["differing"] as? Int == 0)

        // An edited export: a chain Storekeeper never imported, an expired chain RevenueCat
        // still grants, a refund only RevenueCat knows.
        let edited = try Self.editedExport(export, truth: truth, into: directory.appendingPathComponent("edited.csv").path)
        let differ = try await StorekeeperProcess.run(compareArguments + ["--file", edited.path], timeout: 300)
        #expect(differ.exitCode == 1, "\(differ.standardError)")
        let report = try differ.json()
        let customers = try #require(report["differences"] as? [[String: Any]])
        var reasons: [String: String] = [:]
        for customer in customers {
            for difference in customer["differences"] as? [[String: Any]] ?? [] {
                reasons[customer["customerId"] as? String ?? ""] = difference["reason"] as? String
            }
        }
        #expect(
            reasons == [
                edited.notImported: "chain_not_imported", edited.expired: "expired_in_storekeeper", edited.refunded: "refunded_in_revenuecat",
            ], "\(differ.text.prefix(3_000))")
        let table = try await StorekeeperProcess.run(compareArguments + ["--file", edited.path, "--format", "text"], timeout: 300)
        #expect(table.exitCode == 1 && table.text.contains("refunded_in_revenuecat"), "\(table.text)")

        try await Self.checkFailures(truth: truth, export: export, ca: ca, data: data, directory: directory)
    }

    /// What cannot be linked is said per customer and chain or alias; bad input is a usage error.
    static func checkFailures(truth: Truth, export: String, ca: String, data: String, directory: URL) async throws {
        let common = ["import", "revenuecat", "--config", "\(ca)/storekeeper.json", "--data-dir", data, "--app", "local"]
        // A plain list claiming another customer's chain and alias, and a line that is no row.
        let owned = try #require(truth.customers.first { $0.unknownTransactionIds.isEmpty && !$0.entitlements.isEmpty })
        let anonymous = try #require(truth.customers.first { !$0.aliases.isEmpty })
        let list = directory.appendingPathComponent("list.csv")
        try "intruder,\(owned.entitlements[0].originalTransactionId),\(anonymous.aliases[0])\nintruder,abc\n".write(
            to: list, atomically: true, encoding: .utf8)
        let claimed = try await StorekeeperProcess.run(common + ["--file", list.path], timeout: 300)
        #expect(claimed.exitCode == 1, "\(claimed.standardError)")
        let codes = try (claimed.json()["failures"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(Set(codes) == ["chain_owned_by_another_customer", "alias_owned_by_another_customer", "malformed_row"], "\(claimed.text)")

        // The export gzip-compressed, with the first runs' progress file: read the same, and
        // nothing left to change.
        let compressed = directory.appendingPathComponent("copy.csv")
        try FileManager.default.copyItem(atPath: export, toPath: compressed.path)
        #expect(try await ChildProcess.run("/usr/bin/gzip", ["-n", compressed.path]).status == 0)
        let gzipped = try await StorekeeperProcess.run(
            common + ["--file", compressed.path + ".gz", "--progress-file", export + ".progress"], timeout: 300)
        let summary = try gzipped.json()
        #expect(summary["compressed"] as? Bool == true && summary["changed"] as? Bool == false && summary["rows"] as? Int == truth.rows)

        // A catalog without a product Apple's data names: the chain fails as unknown_product.
        var reader = try RevenueCatExport(path: export)
        var lifetimeChain: String?
        while lifetimeChain == nil, let entry = try reader.next() {
            if case .row(let row) = entry, row.productId == "themes.lifetime" { lifetimeChain = row.originalTransactionId }
        }
        let chain = try #require(lifetimeChain)
        var configuration = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(ca)/storekeeper.json"))) as? [String: Any])
        var apps = try #require(configuration["apps"] as? [[String: Any]])
        apps[0]["products"] = (apps[0]["products"] as? [[String: Any]] ?? []).filter { $0["productId"] as? String != "themes.lifetime" }
        configuration["apps"] = apps
        let narrow = directory.appendingPathComponent("narrow.json")
        try JSONSerialization.data(withJSONObject: configuration).write(to: narrow)
        let single = directory.appendingPathComponent("single.csv")
        try "buyer,\(chain)\n".write(to: single, atomically: true, encoding: .utf8)
        let unknown = try await StorekeeperProcess.run(
            [
                "import", "revenuecat", "--config", narrow.path, "--data-dir", directory.appendingPathComponent("data-2").path, "--app", "local",
                "--file", single.path,
            ],
            timeout: 300)
        #expect(unknown.exitCode == 1)
        let failure = try (unknown.json()["failures"] as? [[String: Any]])?.first
        #expect(failure?["code"] as? String == "unknown_product" && failure?["productIds"] as? [String] == ["themes.lifetime"], "\(unknown.text)")

        // Input that is no export: a usage error, as `import FILE` gives.
        let empty = directory.appendingPathComponent("empty.csv")
        try Data().write(to: empty)
        let refused = try await StorekeeperProcess.run(common + ["--file", empty.path], timeout: 60)
        #expect(refused.exitCode == 2 && refused.standardError.contains("empty"), "\(refused.standardError)")
    }

    /// The export with three rows added, and whom each concerns.
    static func editedExport(
        _ path: String, truth: Truth, into output: String
    ) throws -> (path: String, notImported: String, expired: String, refunded: String) {
        var reader = try RevenueCatExport(path: path)
        // Per app user id: its App Store auto-renewable chains and their products.
        var renewables: [String: [String: String]] = [:]
        while let entry = try reader.next() {
            guard case .row(let row) = entry, row.isAppStore, row.isAutoRenewable == true, let chain = row.originalTransactionId,
                let product = row.productId
            else { continue }
            renewables[row.appUserId, default: [:]][chain] = product
        }
        let idle = truth.customers.filter { $0.entitlements.isEmpty && $0.unknownTransactionIds.isEmpty }
        let expired = try #require(idle.first { renewables[$0.appUserId]?.isEmpty == false })
        let notImported = try #require(idle.first { $0.appUserId != expired.appUserId })
        let expiredChain = try #require(renewables[expired.appUserId]?.keys.sorted().first)
        let refunded = try #require(
            truth.customers.first { customer in
                customer.entitlements.count == 1 && renewables[customer.appUserId]?[customer.entitlements[0].originalTransactionId] != nil
            })
        let refundedChain = refunded.entitlements[0].originalTransactionId
        let now = Date()
        func row(_ user: String, _ product: String, _ chain: String, start: Date, end: Date, refundedAt: Date? = nil) -> String {
            RevenueCatExportWriter.line([
                user, user, "USA", product, product, RevenueCatExport.format(start), RevenueCatExport.format(end), "", "app_store", "true", "false",
                "false", refundedAt.map(RevenueCatExport.format) ?? "", chain, chain + "9", "", "PURCHASED",
            ])
        }
        let added = [
            row(
                notImported.appUserId, "premium.monthly", "2999999999000001", start: now.addingTimeInterval(-86_400),
                end: now.addingTimeInterval(29 * 86_400)),
            row(
                expired.appUserId, renewables[expired.appUserId]?[expiredChain] ?? "premium.monthly", expiredChain,
                start: now.addingTimeInterval(-86_400), end: now.addingTimeInterval(29 * 86_400)),
            row(
                refunded.appUserId, renewables[refunded.appUserId]?[refundedChain] ?? "premium.monthly", refundedChain,
                start: now.addingTimeInterval(-1),
                end: now.addingTimeInterval(29 * 86_400), refundedAt: now.addingTimeInterval(-1)),
        ]
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text += added.joined(separator: "\n") + "\n"
        try text.write(toFile: output, atomically: true, encoding: .utf8)
        return (output, notImported.appUserId, expired.appUserId, refunded.appUserId)
    }
}
