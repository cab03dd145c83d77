import Foundation
import NIOCore
import NIOHTTP1

/// Signs in to the dashboard as a browser does, for `storekeeper bench read`: the sign-in page
/// sets a cookie and carries the same CSRF token in its form (double submit); the form is
/// posted back with that cookie, the email and the password; the answer (303 to the dashboard)
/// sets the session cookie every signed-in page needs. Cookies are kept as a browser keeps
/// them (set, replaced, removed by an empty value or `Max-Age=0`), so the benchmark knows no
/// cookie name.
struct DashboardSignIn: Sendable {
    var email: String
    var password: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The `Cookie` header of a new session.
    func session(with client: inout ReadClient) async throws -> String {
        var jar: [String: String] = [:]
        let (page, pageHeaders) = await client.timed(.GET, "/dashboard/sign-in")
        guard page.status == 200 else { throw Failure(description: "GET /dashboard/sign-in answered \(page.status) \(page.error ?? "")") }
        Self.keep(pageHeaders, in: &jar)
        guard let csrf = Self.hiddenField("csrf", in: page.text) else { throw Failure(description: "the sign-in page has no csrf field") }
        let form = [("csrf", csrf), ("email", email), ("password", password), ("next", "/dashboard")]
            .map { "\($0.0)=\(Self.formComponent($0.1))" }.joined(separator: "&")
        let (signedIn, signedInHeaders) = await client.timed(
            .POST, "/dashboard/sign-in",
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", Self.header(jar))], body: ByteBuffer(string: form))
        guard signedIn.status == 303 else {
            throw Failure(description: "signing in answered \(signedIn.status) \(signedIn.error ?? String(signedIn.text.prefix(200)))")
        }
        Self.keep(signedInHeaders, in: &jar)
        guard !jar.isEmpty else { throw Failure(description: "signing in set no session cookie") }
        return Self.header(jar)
    }

    /// Applies an answer's `Set-Cookie` headers to `jar`.
    static func keep(_ headers: HTTPHeaders, in jar: inout [String: String]) {
        for line in headers["Set-Cookie"] {
            let parts = line.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals])
            let value = String(pair[pair.index(after: equals)...])
            let expired = parts.dropFirst().contains { $0.lowercased() == "max-age=0" }
            jar[name] = value.isEmpty || expired ? nil : value
        }
    }

    /// The `Cookie` header of `jar`.
    static func header(_ jar: [String: String]) -> String {
        jar.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
    }

    /// The value of the hidden input `name` in an HTML page.
    static func hiddenField(_ name: String, in html: String) -> String? {
        guard let field = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        let rest = html[field.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// `text` encoded for an `application/x-www-form-urlencoded` body.
    static func formComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}
