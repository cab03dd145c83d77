import AppStoreModels
import AppStoreVerification
import Foundation
import StorekeeperTestSupport
import Testing

/// Apple's own test data (from the App Store Server Library) gets Apple's verdicts.
@Suite("Apple's signed test data")
struct AppleFixtureTests {
    /// Inside the test certificates' validity (2023-01-05 to 2033-01-01).
    static let now = Date(timeIntervalSince1970: 1_761_962_975)

    static func fixture(_ path: String) throws -> Data {
        let base = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return try Data(contentsOf: base.appendingPathComponent(path))
    }

    static func jws(_ path: String) throws -> String {
        String(decoding: try fixture(path), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Apple's test root (P-256, no key identifiers: accepted only with strict checks off, as
    /// Apple's tests configure it).
    static func appleTestRoot() throws -> Data { try fixture("certs/testCA.der") }

    static func cases() throws -> [ForgedInput] {
        let root = try appleTestRoot()
        let sandbox = ForgedInput.Configuration(roots: [root], bundleId: "com.example", strict: false)
        let production1234 = ForgedInput.Configuration(
            roots: [root], bundleId: "com.example", environment: .production, appAppleId: 1234, strict: false)
        let production1235 = ForgedInput.Configuration(
            roots: [root], bundleId: "com.example", environment: .production, appAppleId: 1235, strict: false)
        let otherBundle = ForgedInput.Configuration(roots: [root], bundleId: "com.example.x", strict: false)
        let strict = ForgedInput.Configuration(roots: [root], bundleId: "com.example", strict: true)
        let xcodeBundle = "com.example.naturelab.backyardbirds.example"
        let xcode = ForgedInput.Configuration(roots: [], bundleId: xcodeBundle, environment: .xcode, strict: false)
        let xcodeInProduction = ForgedInput.Configuration(
            roots: [root], bundleId: xcodeBundle, environment: .production, appAppleId: 1234, strict: false)
        typealias Row = (String, String, ForgedInput.Kind, ForgedInput.Configuration, String)
        let rows: [Row] = [
            ("testNotification in Sandbox", "mock_signed_data/testNotification", .notification, sandbox, "ok"),
            ("testNotification in Production", "mock_signed_data/testNotification", .notification, production1234, "invalid_environment"),
            (
                "testNotification for another app Apple id", "mock_signed_data/testNotification", .notification, production1235,
                "invalid_app_identifier"
            ),
            ("testNotification read as a transaction", "mock_signed_data/testNotification", .transaction, sandbox, "invalid_app_identifier"),
            ("transactionInfo", "mock_signed_data/transactionInfo", .transaction, sandbox, "ok"),
            ("transactionInfo for another bundle", "mock_signed_data/transactionInfo", .transaction, otherBundle, "invalid_app_identifier"),
            ("transactionInfo with strict checks", "mock_signed_data/transactionInfo", .transaction, strict, "verification_failure"),
            ("renewalInfo", "mock_signed_data/renewalInfo", .renewal, sandbox, "ok"),
            ("wrongBundleId", "mock_signed_data/wrongBundleId", .notification, sandbox, "invalid_app_identifier"),
            ("missingX5CHeaderClaim", "mock_signed_data/missingX5CHeaderClaim", .notification, sandbox, "verification_failure"),
            ("Xcode app transaction", "xcode/xcode-signed-app-transaction", .appTransaction, xcode, "ok"),
            ("Xcode transaction", "xcode/xcode-signed-transaction", .transaction, xcode, "ok"),
            ("Xcode renewal info", "xcode/xcode-signed-renewal-info", .renewal, xcode, "ok"),
            ("Xcode app transaction in Production", "xcode/xcode-signed-app-transaction", .appTransaction, xcodeInProduction, "invalid_chain_length"),
        ]
        return try rows.map { ForgedInput(name: $0.0, kind: $0.2, configuration: $0.3, jws: try jws($0.1), expected: $0.4) }
    }

    @Test("every mock_signed_data and xcode JWS gets Apple's expected verdict")
    func verdicts() async throws {
        for input in try Self.cases() {
            #expect(try await input.storekeeperVerdict(now: Self.now) == input.expected, "\(input.name)")
        }
    }

    @Test(
        "Apple's Python verifier agrees on Apple's own test data",
        .enabled(if: InteropPython.shouldRun, InteropPython.skipMessage)
    )
    func pythonAgrees() async throws {
        let cases = try Self.cases()
        let verdicts = try await AppleReferenceVerifier.verdicts(for: cases.map(\.referenceCase), interpreter: try InteropPython.require())
        for input in cases {
            #expect(verdicts[input.name]?.status == input.expected, "\(input.name): \(verdicts[input.name]?.error ?? "")")
        }
    }

    @Test("the test notification decodes as Apple's tests expect")
    func testNotificationDecodes() async throws {
        let verifier = try SignedDataVerifier(
            rootCertificates: [Self.appleTestRoot()], bundleId: "com.example", appAppleId: 1234,
            environment: .sandbox, options: .init(strictCertificateChecks: false)
        )
        let notification = try #require(
            await verifier.verifyAndDecodeNotification(Self.jws("mock_signed_data/testNotification"), now: Self.now).payload)
        #expect(notification.notificationType == .test)
        #expect(notification.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(notification.data?.appAppleId == 1234)
        #expect(notification.signedDate == Date(timeIntervalSince1970: 1_681_314_324))
    }

    @Test("Xcode signed data decodes with fractional-millisecond dates")
    func xcodeDataDecodes() async throws {
        let verifier = try SignedDataVerifier(
            rootCertificates: [], bundleId: "com.example.naturelab.backyardbirds.example", appAppleId: nil, environment: .xcode
        )
        let transaction = try #require(await verifier.verifyAndDecodeTransaction(Self.jws("xcode/xcode-signed-transaction"), now: Self.now).payload)
        #expect(transaction.productId == "pass.premium")
        #expect(transaction.transactionId == "0")
        #expect(transaction.storefront == "USA")
        #expect(transaction.environment == .xcode)
        let signedDate = try #require(transaction.signedDate)
        #expect((signedDate.timeIntervalSince1970 * 1000).rounded(.down) == 1_697_679_936_056)

        let renewal = try #require(await verifier.verifyAndDecodeRenewalInfo(Self.jws("xcode/xcode-signed-renewal-info"), now: Self.now).payload)
        #expect(renewal.autoRenewProductId == "pass.premium")

        let appTransaction = try #require(
            await verifier.verifyAndDecodeAppTransaction(Self.jws("xcode/xcode-signed-app-transaction"), now: Self.now).payload)
        #expect(appTransaction.appAppleId == nil)
        #expect(appTransaction.applicationVersion == "1")
        #expect(appTransaction.deviceVerificationNonce == "48c8b92d-ce0d-4229-bedf-e61b4f9cfc92")
    }
}
