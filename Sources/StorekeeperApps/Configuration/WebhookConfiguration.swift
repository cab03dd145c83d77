import Foundation

/// One of an app's webhooks (`"webhooks": [{"id", "url", "secret", "events", "environments"}]`):
/// the app's own backend hearing its customer events, signed the Standard Webhooks way.
public struct WebhookConfiguration: Sendable, Codable, Hashable, CustomStringConvertible {
    /// Names the destination in deliveries and logs: letters, digits, `-`, `_`, `.`.
    public var id: String
    /// Where events are posted (`https://…`; `http://` only to private networks an app allows).
    public var url: String
    /// `whsec_` and a base64 key of 24 to 64 bytes. During a rotation, ``secrets`` may list
    /// the old and new secrets: each signs, and the header carries every signature.
    public var secret: String?
    public var secrets: [String]?
    /// Event types to send (`subscription.renewed` …); absent or `["*"]` for every type.
    public var events: [String]?
    /// `Sandbox`, `Production`; absent for both.
    public var environments: [String]?

    public init(id: String, url: String, secret: String, events: [String]? = nil, environments: [String]? = nil) {
        self.id = id
        self.url = url
        self.secret = secret
        self.events = events
        self.environments = environments
    }

    /// Every signing key, decoded (the secret's part after `whsec_`).
    package var signingKeys: [Data] {
        ((secrets ?? []) + (secret.map { [$0] } ?? [])).compactMap(Self.key(of:))
    }

    public static func key(of secret: String) -> Data? {
        guard secret.hasPrefix("whsec_"), let data = Data(base64Encoded: String(secret.dropFirst(6))), (24...64).contains(data.count) else {
            return nil
        }
        return data
    }

    /// Whether an event of `type` in `environment` goes to this webhook.
    package func wants(type: String, environment: String?) -> Bool {
        let types = events ?? ["*"]
        guard types.contains("*") || types.contains(type) else { return false }
        guard let environments, let environment else { return true }
        return environments.contains(environment)
    }

    /// Why the webhook cannot be used, if it cannot.
    package func problem(allowsPrivateNetworks: Bool) -> String? {
        guard !id.isEmpty, id.count <= 64, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
            return "webhook id '\(id.prefix(64))' must be 1 to 64 letters, digits, '-', '_' or '.'"
        }
        guard let url = URL(string: url), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host,
            !host.isEmpty
        else { return "webhook \(id): url must be an http(s) URL" }
        if !allowsPrivateNetworks {
            guard scheme == "https" else { return "webhook \(id): url must use https (http only with allowPrivateNetworks)" }
            if PrivateNetworks.isPrivate(host: host) {
                return "webhook \(id): \(host) is a loopback or private address; set \"allowPrivateNetworks\": true on the app to allow it"
            }
        }
        let keys = (secrets ?? []) + (secret.map { [$0] } ?? [])
        guard !keys.isEmpty, keys.allSatisfy({ Self.key(of: $0) != nil }) else {
            return "webhook \(id): secret must be whsec_ followed by a base64 key of 24 to 64 bytes"
        }
        if let environments, let unknown = environments.first(where: { !["Sandbox", "Production"].contains($0) }) {
            return "webhook \(id): unknown environment \(unknown)"
        }
        return nil
    }

    /// The URL and event filter, never the secret.
    public var description: String { "webhook \(id) → \(url)" }
}

/// Loopback, private, link-local and other non-public addresses, which webhooks may not reach
/// unless the app allows it (a webhook URL must not turn the server into a proxy into its own
/// network).
package enum PrivateNetworks {
    /// Whether `host` is such an address or a name for one (`localhost`).
    package static func isPrivate(host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name == "localhost" || name.hasSuffix(".localhost") || name.hasSuffix(".local") || name.hasSuffix(".internal") { return true }
        if let v4 = ipv4(name) { return isPrivate(v4: v4) }
        if name.contains(":") { return isPrivate(v6: name) }
        return false
    }

    package static func ipv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { UInt8($0) }
        return bytes.count == 4 ? bytes : nil
    }

    package static func isPrivate(v4 b: [UInt8]) -> Bool {
        b[0] == 0 || b[0] == 10 || b[0] == 127 || (b[0] == 169 && b[1] == 254) || (b[0] == 172 && (16...31).contains(b[1]))
            || (b[0] == 192 && b[1] == 168) || (b[0] == 100 && (64...127).contains(b[1])) || b[0] >= 224
    }

    package static func isPrivate(v6 text: String) -> Bool {
        let lower = text.lowercased()
        if lower == "::" || lower == "::1" { return true }
        if lower.hasPrefix("fc") || lower.hasPrefix("fd") || lower.hasPrefix("fe80") || lower.hasPrefix("ff") { return true }
        if lower.hasPrefix("::ffff:"), let v4 = ipv4(String(lower.dropFirst(7))) { return isPrivate(v4: v4) }
        return false
    }

    /// Whether any address `host` resolves to now is private (checked before each delivery, so a
    /// public name later pointed at a private address is refused too).
    package static func resolvesPrivate(host: String) -> Bool {
        if isPrivate(host: host) { return true }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return false }
        defer { freeaddrinfo(first) }
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(entry.pointee.ai_addr, entry.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                let address = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if isPrivate(host: address) { return true }
            }
            cursor = entry.pointee.ai_next
        }
        return false
    }
}
