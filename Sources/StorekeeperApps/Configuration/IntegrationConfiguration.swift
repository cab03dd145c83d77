import Foundation
import StorekeeperStore

/// One of an app's integrations (`"integrations": [{"id", "type", "events", "environments", …}]`):
/// a destination speaking a vendor's own protocol. Each has the vendor's fields and an optional
/// `baseURL` (the vendor's host by default) to which the vendor's path is appended — tests and
/// the demo point it at local receivers.
///
/// - `slack`: `url` (an incoming webhook; with `baseURL`, its path goes there); a message per
///   event, at most one a second.
/// - `telegram`: `botToken`, `chatId`; Bot API `sendMessage` with HTML.
/// - `amplitude`: `apiKey`, `region` (`EU` for the EU endpoint); HTTP V2 API batches.
/// - `mixpanel`: `projectId`, `serviceAccountUsername`, `serviceAccountSecret`, `region` (`EU`);
///   Import API batches in strict mode.
/// - `revenuecat`: `url`, `authorization` (the `Authorization` header's value, sent as it is and
///   never shown); each customer event that has a RevenueCat counterpart as RevenueCat's webhook
///   body (`{"api_version": "1.0", "event": {…}}`), for a backend written against RevenueCat.
///
/// `templates` replaces the message of an event type for Slack and Telegram: `{field}` is any
/// field of the event's data (`{customerId}`, `{productId}`, `{price}`, `{currency}` …).
public struct IntegrationConfiguration: Sendable, Codable, Hashable {
    public enum Kind: String, Sendable, Codable, Hashable, CaseIterable {
        case slack, telegram, amplitude, mixpanel, revenuecat
    }

    public var id: String
    public var type: Kind
    public var events: [String]?
    public var environments: [String]?
    public var baseURL: String?
    public var url: String?
    public var botToken: String?
    public var chatId: String?
    public var apiKey: String?
    public var region: String?
    public var projectId: String?
    public var serviceAccountUsername: String?
    public var serviceAccountSecret: String?
    public var templates: [String: String]?
    /// `revenuecat`: the `Authorization` header's value (`Bearer …`), sent as it is.
    public var authorization: String?

    public init(id: String, type: Kind) {
        self.id = id
        self.type = type
    }

    /// Whether an event of `eventType` in `environment` goes to this integration. `"*"` (or no
    /// `events`) means every type for Slack and Telegram, and every customer event for Amplitude
    /// and Mixpanel: operational alerts (`problem.*`) reach an analytics project only when its
    /// `events` name them. A RevenueCat webhook takes only the types RevenueCat has a counterpart
    /// for (``revenueCatEventTypes``), whatever its `events` say.
    package func wants(type eventType: String, environment: String?) -> Bool {
        let types = events ?? ["*"]
        if type == .revenuecat, !Self.revenueCatEventTypes.contains(eventType) { return false }
        if !types.contains(eventType) {
            guard types.contains("*") else { return false }
            if isAnalytics, eventType.hasPrefix("problem.") { return false }
        }
        guard let environments, let environment else { return true }
        return environments.contains(environment)
    }

    /// The customer events that have a RevenueCat counterpart (`RevenueCatWebhook` maps each to
    /// one RevenueCat event). The others — `trial.converted` (the `subscription.started` that
    /// follows a trial is the RENEWAL with `is_trial_conversion`), `subscription.grace_period_started`,
    /// `subscription.billing_recovered`, `subscription.price_increase`, `consumption.requested`, problems, experiments and retention answers — are not sent to
    /// RevenueCat webhooks. The test event is RevenueCat's `TEST`.
    package static let revenueCatEventTypes: Set<String> = Set(
        [
            EventType.subscriptionStarted, .trialStarted, .renewed, .productChanged, .autoRenewDisabled, .autoRenewEnabled, .billingIssue,
            .expired, .trialExpired, .refunded, .revoked, .extended, .oneTimePurchase, .entitlementGranted,
            .entitlementRevoked, .testEvent,
        ].map(\.rawValue))

    /// Whether this is an analytics project (Amplitude, Mixpanel) rather than a chat.
    package var isAnalytics: Bool { type == .amplitude || type == .mixpanel }

    /// The URL a request goes to.
    package var endpoint: String? {
        let eu = region?.uppercased() == "EU"
        switch type {
        case .slack:
            // The webhook's path (and query) on `baseURL` when one is set.
            guard let url, let baseURL else { return url }
            guard let parts = URLComponents(string: url) else { return nil }
            let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            return base + parts.percentEncodedPath + (parts.percentEncodedQuery.map { "?" + $0 } ?? "")
        case .telegram:
            guard let botToken else { return nil }
            return (baseURL ?? "https://api.telegram.org") + "/bot\(botToken)/sendMessage"
        case .amplitude:
            return (baseURL ?? (eu ? "https://api.eu.amplitude.com" : "https://api2.amplitude.com")) + "/2/httpapi"
        case .mixpanel:
            guard let projectId else { return nil }
            let project = projectId.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? projectId
            return (baseURL ?? (eu ? "https://api-eu.mixpanel.com" : "https://api.mixpanel.com")) + "/import?strict=1&project_id=\(project)"
        case .revenuecat:
            return url
        }
    }

    /// Why the integration cannot be used, if it cannot.
    package func problem(allowsPrivateNetworks: Bool) -> String? {
        guard !id.isEmpty, id.count <= 64, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
            return "integration id '\(id.prefix(64))' must be 1 to 64 letters, digits, '-', '_' or '.'"
        }
        let missing: String? =
            switch type {
            case .slack, .revenuecat: url == nil ? "url" : nil
            case .telegram: botToken == nil ? "botToken" : chatId == nil ? "chatId" : nil
            case .amplitude: apiKey == nil ? "apiKey" : nil
            case .mixpanel:
                projectId == nil
                    ? "projectId"
                    : serviceAccountUsername == nil ? "serviceAccountUsername" : serviceAccountSecret == nil ? "serviceAccountSecret" : nil
            }
        if let missing { return "integration \(id) (\(type.rawValue)) needs \(missing)" }
        if let authorization,
            authorization.isEmpty || authorization.utf8.count > 4096 || !authorization.utf8.allSatisfy({ (0x20...0x7E).contains($0) })
        {
            return "integration \(id): authorization must be 1 to 4096 printable ASCII characters (an HTTP header's value)"
        }
        guard let endpoint, let parsed = URL(string: endpoint), let scheme = parsed.scheme?.lowercased(), let host = parsed.host else {
            return "integration \(id): its URL is not valid"
        }
        if !allowsPrivateNetworks {
            if scheme != "https" { return "integration \(id): its URL must use https (http only with allowPrivateNetworks)" }
            if PrivateNetworks.isPrivate(host: host) {
                return "integration \(id): \(host) is a loopback or private address; set \"allowPrivateNetworks\": true on the app to allow it"
            }
        }
        if let environments, let unknown = environments.first(where: { !["Sandbox", "Production"].contains($0) }) {
            return "integration \(id): unknown environment \(unknown)"
        }
        return nil
    }
}
