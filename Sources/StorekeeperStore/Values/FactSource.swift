/// Where a ledger fact came from. An open set: a newer version may add sources, and rows an
/// older version wrote keep their name.
public struct FactSource: OpenStringValue {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// A StoreKit 2 signed transaction the app posted.
    public static let storeKit2: FactSource = "storeKit2"
    /// A legacy app receipt the app posted.
    public static let receipt: FactSource = "receipt"
    /// An App Store Server Notification V2.
    public static let notificationV2: FactSource = "notificationV2"
    /// A legacy (V1) notification's signed receipt.
    public static let notificationV1: FactSource = "notificationV1"
    /// An answer of the App Store Server API (reconciliation, refund checks, sweeps).
    public static let appStoreServerAPI: FactSource = "appStoreServerAPI"
    /// `storekeeper import`: a customer's history fetched from the App Store Server API.
    public static let `import`: FactSource = "import"
    /// The operator: a manual grant or revocation.
    public static let manual: FactSource = "manual"
}
