import Foundation

/// An External Purchase API token (`EXTERNAL_PURCHASE_TOKEN` notification).
///
/// The token carries no environment: Apple's libraries treat it as sandbox when
/// `externalPurchaseId` starts with `SANDBOX`, see ``isSandbox``.
public struct ExternalPurchaseToken: Codable, Hashable, Sendable {
    /// The token's identifier; it starts with `SANDBOX` in the sandbox.
    public var externalPurchaseId: String?

    /// When the system created the external purchase token.
    @AppStoreDate public var tokenCreationDate: Date?

    /// The app's Apple ID in the App Store.
    public var appAppleId: Int64?

    /// The app's bundle identifier.
    public var bundleId: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        externalPurchaseId: String? = nil,
        tokenCreationDate: Date? = nil,
        appAppleId: Int64? = nil,
        bundleId: String? = nil
    ) {
        self.externalPurchaseId = externalPurchaseId
        self.tokenCreationDate = tokenCreationDate
        self.appAppleId = appAppleId
        self.bundleId = bundleId
    }

    /// Whether the token comes from the sandbox (its identifier starts with `SANDBOX`).
    public var isSandbox: Bool { externalPurchaseId?.hasPrefix("SANDBOX") ?? false }

    /// The environment the token belongs to, as Apple's libraries derive it from ``isSandbox``.
    public var impliedEnvironment: AppStoreEnvironment { isSandbox ? .sandbox : .production }
}
