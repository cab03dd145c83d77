import Foundation
import Testing

/// `storekeeper receipt decode`, `storekeeper status` and the benchmarks, run as a newcomer would.
@Suite struct ReceiptAndStatusCommandTests {
    static func fixture(_ name: String) throws -> URL {
        try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
    }

    @Test func theRevenueCatReceiptDecodesToApplesOwnVerifyReceiptAnswer() async throws {
        let result = try await StorekeeperProcess.run(["receipt", "decode", try Self.fixture("revenuecat-sandbox-sample1-2020.receipt").path])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let ours = try result.json()
        let apple = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: try Self.fixture("revenuecat-verifyReceiptSample1.json"))) as? [String: Any])
        #expect(ours["status"] as? Int == 0)
        #expect(ours["environment"] as? String == apple["environment"] as? String)
        let ourReceipt = try #require(ours["receipt"] as? [String: Any])
        let appleReceipt = try #require(apple["receipt"] as? [String: Any])
        // request_date is the time of the request, so it differs by construction.
        for (key, value) in appleReceipt where !key.hasPrefix("request_date") && key != "in_app" {
            #expect(String(describing: ourReceipt[key] ?? "absent") == String(describing: value), "receipt.\(key)")
        }
        let ourPurchases = try #require(ourReceipt["in_app"] as? [[String: Any]])
        let applePurchases = try #require(appleReceipt["in_app"] as? [[String: Any]])
        try #require(ourPurchases.count == applePurchases.count)
        for (index, (mine, theirs)) in zip(ourPurchases, applePurchases).enumerated() {
            #expect(Set(mine.keys) == Set(theirs.keys), "in_app[\(index)] keys")
            for (key, value) in theirs {
                #expect(String(describing: mine[key] ?? "absent") == String(describing: value), "in_app[\(index)].\(key)")
            }
        }
    }

    @Test func anXcodeReceiptNeedsTheStoreKitRootTheUserAdds() async throws {
        let receipt = try Self.fixture("xcode-storekit-2023-with-transaction.receipt").path
        let withAppleRoot = try await StorekeeperProcess.run(["receipt", "decode", receipt])
        #expect(withAppleRoot.exitCode == 1)
        #expect(try withAppleRoot.json()["status"] as? Int == 21003)
        let withStoreKitRoot = try await StorekeeperProcess.run([
            "receipt", "decode", receipt, "--root", try Self.fixture("StoreKitTestCertificate.cer").path,
        ])
        #expect(withStoreKitRoot.exitCode == 0, "\(withStoreKitRoot.standardError)")
        let decoded = try #require(try withStoreKitRoot.json()["receipt"] as? [String: Any])
        #expect(decoded["bundle_id"] as? String == "com.example.naturelab.backyardbirds.example")
        let purchases = try #require(decoded["in_app"] as? [[String: Any]])
        #expect(purchases.first?["product_id"] as? String == "pass.premium")
    }

    @Test func badReceiptsGetApplesStatusAndExitOne() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try Data(contentsOf: try Self.fixture("revenuecat-sandbox-sample1-2020.receipt"))
        var flipped = original
        flipped[flipped.count / 2] ^= 0x40
        let inputs: [(String, Data, Int)] = [
            ("empty", Data(), 21002),
            ("json", Data(#"{"receipt-data": "abc"}"#.utf8), 21002),
            ("random", Data((0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 7919) }), 21002),
            ("truncated", original.prefix(original.count / 3), 21002),
            ("cracker", Data(Data("com.revenuecat.monthly_4.99.1_week_intro".utf8).base64EncodedString().utf8), 21002),
            ("ios6", try Data(contentsOf: try Self.fixture("ios6-transaction-receipt.b64.txt")), 21002),
            ("flipped", flipped, 21003),
        ]
        for (name, data, status) in inputs {
            try data.write(to: directory.appendingPathComponent(name))
            let result = try await StorekeeperProcess.run(["receipt", "decode", name], in: directory, timeout: 120)
            #expect(result.exitCode == 1, "\(name)")
            let code = try result.json()["status"] as? Int
            #expect(code != 0 && code != nil, "\(name)")
            if name != "flipped" { #expect(code == status, "\(name): \(result.standardError)") }
        }
        let wrongApp = try await StorekeeperProcess.run([
            "receipt", "decode", try Self.fixture("revenuecat-sandbox-sample1-2020.receipt").path, "--bundle-id", "com.example.other",
        ])
        #expect(wrongApp.exitCode == 1)
        let missing = try await StorekeeperProcess.run(["receipt", "decode", "/nonexistent/receipt"])
        #expect(missing.exitCode == 2)
    }

    @Test func statusComputesSubscriptionsEntitlementsAndEligibilityFromAVerifyReceiptResponse() async throws {
        let response = try Self.fixture("revenuecat-verifyReceiptSample1.json").path
        let catalog = try Self.fixture("catalog.json").path
        // The last period of the sample ends at 2020-07-22 18:39:06 UTC and auto-renew is on.
        let during = try await StorekeeperProcess.run(["status", response, "--at", "2020-07-22T18:39:05Z", "--catalog", catalog, "--compact"])
        #expect(during.exitCode == 0, "\(during.standardError)")
        let report = try during.json()
        let subscriptions = try #require(report["subscriptions"] as? [[String: Any]])
        let subscription = try #require(subscriptions.first { $0["originalTransactionId"] as? String == "1000000692878476" })
        #expect(subscription["status"] as? String == "active")
        #expect(subscription["subscriptionGroupIdentifier"] as? String == "20662382")
        let eligibility = try #require(report["eligibility"] as? [String: [String: Any]])
        #expect(eligibility["20662382"]?["introductoryOffer"] as? Bool == false)
        #expect(eligibility["revenuecat.extras"]?["introductoryOffer"] as? Bool == true, "a catalog group with no purchases is listed")

        let after = try await StorekeeperProcess.run(["status", response, "--at", "2020-07-22T18:39:07Z", "--catalog", catalog, "--compact"])
        let later = try #require(try after.json()["subscriptions"] as? [[String: Any]])
        #expect(later.first { $0["originalTransactionId"] as? String == "1000000692878476" }?["status"] as? String != "active")

        let badDate = try await StorekeeperProcess.run(["status", response, "--at", "yesterday"])
        #expect(badDate.exitCode == 2)
    }

    @Test func benchmarksReportTheirRateAsJSON() async throws {
        let engine = try await StorekeeperProcess.run(["bench", "engine", "--seconds", "0.2"])
        #expect(engine.exitCode == 0, "\(engine.standardError)")
        let report = try engine.json()
        #expect((report["operations"] as? Int ?? 0) > 0)
        #expect(report["threads"] as? Int == 1)
        #expect(report["perSecond"] != nil && report["seconds"] != nil)

        let receipt = try await StorekeeperProcess.run([
            "bench", "receipt", try Self.fixture("revenuecat-sandbox-sample1-2020.receipt").path, "--seconds", "0.2", "--threads", "2",
        ])
        #expect(receipt.exitCode == 0, "\(receipt.standardError)")
        #expect(try receipt.json()["failures"] as? Int == 0)
    }
}
