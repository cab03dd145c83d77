import Foundation

/// How an app that moves from RevenueCat is reached by what still speaks RevenueCat: apps in
/// customers' hands (the SDK's `proxyURL` pointed at Storekeeper, authenticated by the app's
/// public SDK key) and backends (RevenueCat's REST API v2, authenticated by a secret key).
///
/// ```json
/// "revenueCat": {
///   "sdkKeys": ["appl_AbCdEf0123456789"],
///   "secretKeys": [{"key": "sk_0123456789abcdef", "role": "app"}],
///   "projectId": "proj1ab2c3d4",
///   "revenueCatAppId": "app1a2b3c4d"
/// }
/// ```
public struct RevenueCatSettings: Sendable, Codable, Hashable {
    /// The public SDK keys (`appl_…`) the app's shipped builds carry. Anyone holding the app can
    /// read them, so an SDK key opens only the SDK's routes, for this app's customers.
    public var sdkKeys: [String]
    /// The REST API v2 secret keys (`sk_…`) backends use, each with the Storekeeper role it
    /// stands for (`app` reads; `admin` also reads what an admin key may).
    public var secretKeys: [APIKeyConfiguration]
    /// The RevenueCat project id v2 paths name (`/v2/projects/{projectId}/…`). Apps with the same
    /// project id answer together. Default: the app's Storekeeper project id, else the app id.
    public var projectId: String?
    /// The RevenueCat app id (`app1a2b3c4d`) v2 answers and webhooks name. Default: the app id.
    public var revenueCatAppId: String?

    public init(sdkKeys: [String] = [], secretKeys: [APIKeyConfiguration] = [], projectId: String? = nil, revenueCatAppId: String? = nil) {
        self.sdkKeys = sdkKeys
        self.secretKeys = secretKeys
        self.projectId = projectId
        self.revenueCatAppId = revenueCatAppId
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sdkKeys = try container.decodeIfPresent([String].self, forKey: .sdkKeys) ?? []
        secretKeys = try container.decodeIfPresent([APIKeyConfiguration].self, forKey: .secretKeys) ?? []
        projectId = try container.decodeIfPresent(String.self, forKey: .projectId)
        revenueCatAppId = try container.decodeIfPresent(String.self, forKey: .revenueCatAppId)
    }

    /// What is wrong with these settings, if anything.
    package var problem: String? {
        for key in sdkKeys + secretKeys.map(\.key) where key.utf8.count < 16 || key.utf8.count > 256 {
            return "revenueCat keys must be 16 to 256 characters"
        }
        for key in sdkKeys + secretKeys.map(\.key) where !key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
            return "revenueCat keys must be printable ASCII without spaces"
        }
        for id in [projectId, revenueCatAppId].compactMap({ $0 })
        where id.isEmpty || id.utf8.count > 128 || !id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) {
            return "revenueCat projectId and revenueCatAppId must be 1 to 128 letters, digits, '-', '_' or '.'"
        }
        return nil
    }
}

/// Where the notification URL sends a copy of each notification it accepted: a second backend
/// fed by Apple's notifications (RevenueCat's Apple notification forwarding, run the other way
/// round), for a shadow period while both systems run.
public struct NotificationForwarding: Sendable, Codable, Hashable {
    /// The URL each accepted notification's body is POSTed to, unchanged.
    public var url: String

    public init(url: String) {
        self.url = url
    }

    /// Why the URL cannot be used, if it cannot: an http(s) URL, https and public unless the app
    /// allows private networks (the rule of webhooks).
    package func problem(allowsPrivateNetworks: Bool) -> String? {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = parsed.host, !host.isEmpty
        else { return "url must be an http(s) URL" }
        if !allowsPrivateNetworks {
            guard scheme == "https" else { return "url must use https (http only with allowPrivateNetworks)" }
            if PrivateNetworks.isPrivate(host: host) {
                return "\(host) is a loopback or private address; set \"allowPrivateNetworks\": true on the app to allow it"
            }
        }
        return nil
    }
}
