import AppStoreModels
import AppStoreServerAPI
import Foundation

/// An app's App Store Server API credentials, from its configuration (`appStoreServerAPI`).
///
/// Apps without them run no jobs that talk to Apple. The same In-App Purchase key signs the
/// API's bearer tokens and the app's promotional offers.
public struct AppStoreAPISettings: Sendable, Codable, Hashable {
    /// The issuer id of the team's App Store Connect keys.
    public var issuerId: String
    /// The In-App Purchase key's id.
    public var keyId: String
    /// Path of the `.p8` key file (absolute, or relative to the working directory).
    public var privateKeyPath: String?
    /// The key inline, as PEM text; used when ``privateKeyPath`` is absent.
    public var privateKey: String?
    /// `Production` or `Sandbox` (or another, with ``baseURL``).
    public var environment: String
    /// Where requests go instead of Apple's host (an App Store simulator).
    public var baseURL: String?

    public init(
        issuerId: String, keyId: String, privateKeyPath: String? = nil, privateKey: String? = nil, environment: String, baseURL: String? = nil
    ) {
        self.issuerId = issuerId
        self.keyId = keyId
        self.privateKeyPath = privateKeyPath
        self.privateKey = privateKey
        self.environment = environment
        self.baseURL = baseURL
    }

    /// The key, read from the file or the inline PEM.
    public func key(app: String) throws -> InAppPurchaseKey {
        let pem: String
        if let path = privateKeyPath {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError("app \(app): cannot read the App Store Server API key \(path)")
            }
            pem = String(decoding: data, as: UTF8.self)
        } else if let inline = privateKey {
            pem = inline
        } else {
            throw ConfigurationError("app \(app): appStoreServerAPI needs privateKeyPath or privateKey")
        }
        do {
            return try InAppPurchaseKey(keyId: keyId, pem: pem)
        } catch {
            throw ConfigurationError("app \(app): the App Store Server API key is unreadable: \(error)")
        }
    }

    /// The live client's configuration for an app with `bundleId`.
    public func clientConfiguration(app: String, bundleId: String) throws -> AppStoreServerAPIClient.Configuration {
        var url: URL?
        if let baseURL {
            guard let parsed = URL(string: baseURL), parsed.scheme != nil else {
                throw ConfigurationError("app \(app): appStoreServerAPI.baseURL is not a URL")
            }
            url = parsed
        }
        do {
            return try AppStoreServerAPIClient.Configuration(
                key: try key(app: app), issuerId: issuerId, bundleId: bundleId,
                environment: AppStoreEnvironment(rawValue: environment), baseURL: url)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("app \(app): \(error)")
        }
    }
}
