import Foundation

/// How an app's copy of StorekeeperKit reaches its Storekeeper server and what it keeps on the
/// device.
public struct StorekeeperConfiguration: Sendable {
    /// The operator's server, e.g. `https://subscriptions.example.com`.
    public var serverURL: URL
    /// The app's id on the server (the `{appId}` of its paths).
    public var appId: String
    /// The app's API key (role `app`), or a customer token the app's backend minted.
    public var apiKey: String
    /// The app's own id of the user; `nil` for an anonymous id made once and kept in
    /// ``stateDirectory`` until ``Storekeeper/identify(appUserId:)``.
    public var appUserId: String?
    /// SHA-256 pins of the server certificate's public key (SPKI), base64, optionally prefixed
    /// `sha256/`. Empty: the platform's usual certificate checks only.
    public var certificatePins: [String]
    /// How long the last signed customer state keeps serving entitlements without the server,
    /// from the server's signing instant. Ten days by default (seed 002).
    public var offlineWindow: TimeInterval
    /// The server's customer-state public key (PEM). `nil`: fetched from the server once and
    /// pinned in ``stateDirectory``.
    public var serverPublicKey: String?
    /// Where the cache, the purchases waiting for the server and the anonymous id are kept.
    public var stateDirectory: URL
    /// How many times a charged purchase is posted to the server before it is given up on and
    /// reported as a problem (the seed's bounded retry).
    public var deliveryAttempts: Int
    /// Seconds a request may take.
    public var requestTimeout: TimeInterval

    public init(
        serverURL: URL, appId: String, apiKey: String, appUserId: String? = nil, certificatePins: [String] = [],
        offlineWindow: TimeInterval = 10 * 86_400, serverPublicKey: String? = nil, stateDirectory: URL, deliveryAttempts: Int = 5,
        requestTimeout: TimeInterval = 30
    ) {
        self.serverURL = serverURL
        self.appId = appId
        self.apiKey = apiKey
        self.appUserId = appUserId
        self.certificatePins = certificatePins
        self.offlineWindow = offlineWindow
        self.serverPublicKey = serverPublicKey
        self.stateDirectory = stateDirectory
        self.deliveryAttempts = max(1, deliveryAttempts)
        self.requestTimeout = requestTimeout
    }
}
