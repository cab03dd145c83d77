import AppStoreVerification
import Foundation
import Testing

/// Loads the receipt fixtures under `Fixtures/` (see `Fixtures/receipts/README.md`).
enum ReceiptFixtures {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// Every real receipt shipped with the tests, by base name.
    static let receiptNames = [
        "revenuecat-sandbox-receipt3-2018", "revenuecat-sandbox-sample1-2020", "tpinappreceipt-production-2024",
        "tpinappreceipt-sandbox-2016", "tpinappreceipt-sandbox-2019-07", "tpinappreceipt-sandbox-2019-08",
        "tpinappreceipt-sandbox-g5-2025", "tpinappreceipt-sandbox-legacy-2020", "tpinappreceipt-sandbox-wwdr-g7-2023",
        "xcode-storekit-2020", "xcode-storekit-2023-empty", "xcode-storekit-2023-with-transaction",
    ]

    static let appStoreReceiptNames = receiptNames.filter { !$0.hasPrefix("xcode") }

    /// A fixed "now" after every fixture's creation date (2026-06-01T00:00:00Z).
    static let now = Date(timeIntervalSince1970: 1_780_272_000)

    static func data(_ relativePath: String) throws -> Data {
        guard let base = Bundle.module.resourceURL else { throw Missing(description: "no resource bundle") }
        let url = base.appendingPathComponent("Fixtures").appendingPathComponent(relativePath)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw Missing(description: "fixture \(relativePath) not found")
        }
        return data
    }

    static func receipt(_ name: String) throws -> Data {
        try data("receipts/\(name).receipt")
    }

    static func expected(_ name: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: try data("receipts/\(name).expected.json"))
        guard let dictionary = object as? [String: Any] else { throw Missing(description: "\(name): not an object") }
        return dictionary
    }

    static func storeKitTestCertificate() throws -> Data {
        try data("apple-roots/StoreKitTestCertificate.cer")
    }

    /// A verifier trusting the Apple Inc. Root and the Xcode StoreKit test certificate.
    static func verifierWithXcodeRoot() throws -> ReceiptVerifier {
        try ReceiptVerifier(rootCertificates: [AppleRootCertificates.appleIncRoot, storeKitTestCertificate()])
    }
}
