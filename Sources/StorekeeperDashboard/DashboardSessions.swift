import AppStoreJOSE
import Crypto
import Foundation
import Hummingbird
import StorekeeperStore

/// Session tokens, their cookie and the CSRF token derived from each.
///
/// The cookie holds 32 random bytes; the database holds only their SHA-256, so a copy of the
/// database opens no session. The CSRF token is an HMAC of the session token: it changes with
/// every session, needs no storage, and cannot be computed without the cookie.
package enum SessionTokens {
    package static let cookieName = "storekeeper_session"
    /// The sign-in form's own CSRF cookie (double submit), before any session exists.
    package static let signInCookieName = "storekeeper_signin"

    package static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64URLEncoded
    }

    package static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    package static func csrf(for token: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("storekeeper dashboard csrf".utf8), using: SymmetricKey(data: Data(token.utf8)))
        return Data(mac).base64URLEncoded
    }

    /// The value of cookie `name` in the request's `Cookie` headers.
    package static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for part in header.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == name else { continue }
                let value = pair[1].trimmingCharacters(in: .whitespaces)
                // Tokens are base64url: anything else is not one of ours.
                guard (16...128).contains(value.utf8.count), value.utf8.allSatisfy(Self.isTokenByte) else { return nil }
                return value
            }
        }
        return nil
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
    }

    /// Whether the visitor reached the server over TLS (directly, or through a proxy that says so):
    /// cookies are then marked `Secure`.
    package static func isSecure(_ request: Request) -> Bool {
        request.uri.scheme?.rawValue == "https" || request.headers[.init("X-Forwarded-Proto")!]?.lowercased() == "https"
    }

    /// A `Set-Cookie` value: `HttpOnly`, `SameSite=Strict`, scoped to `/dashboard`, `Secure` over TLS.
    package static func setCookie(_ name: String, _ value: String, maxAge: Int, secure: Bool) -> String {
        "\(name)=\(value); Path=/dashboard; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// Whether two tokens are equal, in time independent of where they differ.
    package static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

extension Data {
    /// Base64url without padding.
    package var base64URLEncoded: String { Base64URL.encode(self) }
}

/// Counts failed sign-ins per account and per client address: after five failures in fifteen
/// minutes, sign-in for that account or from that address waits 30 seconds, doubling with every
/// further failure up to fifteen minutes. A success clears the account's count. The table is
/// bounded (an attacker cycling addresses cannot fill memory): the oldest records go first.
package actor SignInThrottle {
    package struct Record {
        package var failures: Int
        package var last: Date
    }

    package static let freeFailures = 5
    package static let window: TimeInterval = 15 * 60
    package static let longestWait: TimeInterval = 15 * 60
    private var records: [String: Record] = [:]
    private let capacity: Int

    package init(capacity: Int = 10_000) { self.capacity = capacity }

    /// How long the caller must still wait before trying (0 when it may try now).
    package func wait(account: String, address: String?, now: Date) -> TimeInterval {
        Self.keys(account: account, address: address).map { key in
            guard let record = records[key], now.timeIntervalSince(record.last) < Self.window else { return 0 }
            return max(0, record.last.addingTimeInterval(Self.delay(after: record.failures)).timeIntervalSince(now))
        }.max() ?? 0
    }

    package func failed(account: String, address: String?, now: Date) {
        for key in Self.keys(account: account, address: address) {
            var record = records[key] ?? Record(failures: 0, last: now)
            if now.timeIntervalSince(record.last) >= Self.window { record.failures = 0 }
            record.failures += 1
            record.last = now
            records[key] = record
        }
        if records.count > capacity {
            let oldest = records.sorted { $0.value.last < $1.value.last }.prefix(records.count - capacity).map(\.key)
            for key in oldest { records[key] = nil }
        }
    }

    package func succeeded(account: String) {
        records["account:" + account.lowercased()] = nil
    }

    /// The wait after `failures` failures in the window.
    package static func delay(after failures: Int) -> TimeInterval {
        guard failures >= freeFailures else { return 0 }
        return min(longestWait, 30 * pow(2, Double(failures - freeFailures)))
    }

    private static func keys(account: String, address: String?) -> [String] {
        ["account:" + account.lowercased()] + (address.map { ["address:" + $0] } ?? [])
    }
}
