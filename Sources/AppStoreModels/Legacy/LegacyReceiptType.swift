/// The kind of app receipt (`receipt_type`, receipt attribute 0): which App Store issued it.
///
/// An open set: unknown values decode, keep their raw string and encode back unchanged.
public struct LegacyReceiptType: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Issued by the production App Store.
    public static let production = LegacyReceiptType(rawValue: "Production")
    /// Issued by the production App Store for a Volume Purchase Program purchase.
    public static let productionVPP = LegacyReceiptType(rawValue: "ProductionVPP")
    /// Issued by the sandbox.
    public static let productionSandbox = LegacyReceiptType(rawValue: "ProductionSandbox")
    /// Issued by the sandbox for a Volume Purchase Program purchase.
    public static let productionVPPSandbox = LegacyReceiptType(rawValue: "ProductionVPPSandbox")
    /// Issued by Xcode's StoreKit Testing, signed by the local StoreKit certificate.
    public static let xcode = LegacyReceiptType(rawValue: "Xcode")

    public static let known: [LegacyReceiptType] = [
        .production, .productionVPP, .productionSandbox, .productionVPPSandbox, .xcode,
    ]

    /// The `environment` Apple's `verifyReceipt` reports for this kind of receipt:
    /// `Sandbox` for sandbox receipts, `Xcode` for Xcode ones, `Production` otherwise.
    public var environment: AppStoreEnvironment {
        switch self {
        case .productionSandbox, .productionVPPSandbox: return .sandbox
        case .xcode: return .xcode
        default: return rawValue.hasSuffix("Sandbox") ? .sandbox : .production
        }
    }
}
