/// The App Store environment a piece of signed data or a request belongs to.
///
/// Apple may add values at any time, so this is an open set: an unknown value decodes, keeps
/// its raw string and encodes back unchanged.
public struct AppStoreEnvironment: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The sandbox: TestFlight and sandbox Apple Accounts.
    public static let sandbox = AppStoreEnvironment(rawValue: "Sandbox")

    /// The live App Store.
    public static let production = AppStoreEnvironment(rawValue: "Production")

    /// StoreKit Testing in Xcode (data signed by a local, self-signed certificate).
    public static let xcode = AppStoreEnvironment(rawValue: "Xcode")

    /// Unit tests and local tools; signed data is not checked against Apple's roots.
    public static let localTesting = AppStoreEnvironment(rawValue: "LocalTesting")

    /// The values Apple documents today.
    public static let known: [AppStoreEnvironment] = [.sandbox, .production, .xcode, .localTesting]
}
