import AppStoreModels
import Foundation
import StorekeeperTestSupport
import Testing

@testable import AppStoreSimulator

/// Apple's own Python `app-store-server-library`, unchanged except for its base URL, calls the
/// simulator's endpoints, decodes every answer, and verifies the signed data with Apple's
/// `SignedDataVerifier` trusting the test root.
@Suite("Simulated App Store: Apple's Python client and verifier", .tags(.slow), .skippedWhenFast)
struct SimulatorPythonInteropTests {
    struct Report: Decodable {
        var calls: [String]
        var skipped: [String]
        var statusGroups: [String]
        var historyIds: [String]
        var historyPages: Int
        var refundIds: [String]
        var notificationCount: Int
        var notificationPages: Int
        var testNotificationType: String
        var extendSuccess: Bool
        var orderStatus: Int
        var appTransactionId: String?
        var notFound: [Int]
        var verified: [String: Int]
    }

    @Test(.enabled(if: InteropPython.shouldRun, InteropPython.skipMessage))
    func applesPythonClientDecodesEveryAnswerAndItsVerifierAcceptsTheSignedData() async throws {
        let python = try InteropPython.require()
        let fixture = try SimulatorHTTPFixture()
        let report = try await fixture.withServer { url, _ in
            let configuration: [String: String] = [
                "base_url": url.absoluteString, "key_pem": fixture.keys.apiKey.pemRepresentation, "key_id": SimulatorHTTPFixture.keyId,
                "issuer_id": SimulatorHTTPFixture.issuerId, "bundle_id": SimulatorHTTPFixture.bundleId, "environment": "Production",
                "app_apple_id": String(SimulatorHTTPFixture.appAppleId),
                "root": fixture.keys.certificateAuthority.rootCertificateDER.base64EncodedString(),
                "subscription": SimulatorHTTPFixture.weeklyOriginal, "latest": SimulatorHTTPFixture.weeklyLatest,
                "consumable": SimulatorHTTPFixture.keptCoins,
                "start_ms": String(Int64(SimulatorHTTPFixture.start.addingTimeInterval(-179 * 86_400).timeIntervalSince1970 * 1000)),
                "end_ms": String(Int64(SimulatorHTTPFixture.start.addingTimeInterval(1).timeIntervalSince1970 * 1000)),
            ]
            return try await Self.run(python: python, script: Self.script, input: try JSONEncoder().encode(configuration))
        }
        #expect(report.skipped.isEmpty, "methods missing from the installed library: \(report.skipped)")
        #expect(report.calls.count >= 13)
        #expect(report.statusGroups == ["G1"])
        #expect(report.historyPages == 2)
        #expect(report.historyIds.count == 27)
        #expect(report.refundIds == [SimulatorHTTPFixture.refundedCoins])
        #expect(report.notificationPages == 2)
        #expect(report.notificationCount == 29)
        #expect(report.testNotificationType == "TEST")
        #expect(report.extendSuccess)
        #expect(report.orderStatus == 0)
        #expect(report.appTransactionId == fixture.store.appTransactionId(ofCustomer: "alice"))
        #expect(report.notFound == [404, 4040010])
        #expect(report.verified["transactions", default: 0] >= 31)
        #expect(report.verified["renewals"] == 1)
        #expect(report.verified["notifications"] == 30)
        #expect(report.verified["appTransactions"] == 1)
        #expect(fixture.store.consumptionAnswers(transactionId: SimulatorHTTPFixture.keptCoins).count == 2)
        #expect(fixture.store.subscription(SimulatorHTTPFixture.weeklyOriginal)?.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
    }

    /// Runs the script off the cooperative pool (the server answers it meanwhile).
    static func run(python: String, script: String, input: Data) async throws -> Report {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("simulator-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let scriptURL = directory.appendingPathComponent("interop.py")
        let inputURL = directory.appendingPathComponent("input.json")
        try Data(script.utf8).write(to: scriptURL)
        try input.write(to: inputURL)
        let finished = try await ChildProcess.run(python, [scriptURL.path, inputURL.path])
        let (status, output, errors) = (finished.status, finished.output, finished.error)
        try #require(status == 0, "Python failed: \(String(decoding: errors, as: UTF8.self))")
        return try JSONDecoder().decode(Report.self, from: output)
    }
}
