/// The top-level `environment` of a V1 notification: `PROD` or `Sandbox`.
///
/// V1 notifications spell production `PROD`, unlike `verifyReceipt` and `unified_receipt`
/// (`Production`). An open set: unknown values decode and encode back unchanged.
public struct NotificationV1Environment: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The production App Store.
    public static let production = NotificationV1Environment(rawValue: "PROD")
    /// The sandbox.
    public static let sandbox = NotificationV1Environment(rawValue: "Sandbox")

    public static let known: [NotificationV1Environment] = [.production, .sandbox]

    /// The environment in StoreKit 2 terms (`PROD` and `Production` both map to production).
    public var environment: AppStoreEnvironment {
        switch rawValue.lowercased() {
        case "prod", "production": return .production
        case "sandbox": return .sandbox
        default: return AppStoreEnvironment(rawValue: rawValue)
        }
    }
}
