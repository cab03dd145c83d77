import Foundation

/// Loads the legacy JSON fixtures (`Fixtures/verify-receipt/`, `Fixtures/notifications-v1/`).
enum LegacyFixtures {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    static let verifyReceiptFiles = [
        "aporat-inAppPurchaseInvalidReceiptResponse.json", "aporat-inAppPurchaseResponse.json",
        "imdhemy-verify_receipt_response.json", "itunes-iap-autorenew-response-ios6-legacy.json",
        "itunes-iap-autorenew-response2.json", "itunes-iap-autorenew-response3.json",
        "revenuecat-verifyReceiptSample1.json",
    ]

    static let notificationFiles = [
        "aporat-serverNotificationRequest-DID_RENEW.json", "app-vise-request-INITIAL_BUY-legacy-shape.json",
        "imdhemy-server-notification-DID_CHANGE_RENEWAL_STATUS.json",
    ]

    static func data(_ folder: String, _ file: String) throws -> Data {
        guard let base = Bundle.module.resourceURL else { throw Missing(description: "no resource bundle") }
        let url = base.appendingPathComponent("Fixtures").appendingPathComponent(folder).appendingPathComponent(file)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw Missing(description: "fixture \(folder)/\(file) not found")
        }
        return data
    }

    static func milliseconds(_ value: Int64) -> Date {
        Date(appStoreMilliseconds: value)
    }
}
