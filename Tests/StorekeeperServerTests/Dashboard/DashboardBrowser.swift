import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore

/// A minimal browser over the test client: keeps the dashboard's cookies, posts forms, and reads
/// what a page's HTML holds (its CSRF token, its links).
final class DashboardBrowser: @unchecked Sendable {
    let client: any TestClientProtocol
    private(set) var cookies: [String: String] = [:]
    private(set) var setCookieHeaders: [String] = []
    var forwardedProto: String?

    init(_ client: any TestClientProtocol) { self.client = client }

    struct Page {
        var status: Int
        var text: String
        var headers: HTTPFields
        var location: String? { headers[.location] }

        /// The value of the first `name="csrf"` field on the page.
        var csrf: String? { Self.capture(#"name="csrf" value="([^"]+)""#, in: text) }

        static func capture(_ pattern: String, in text: String) -> String? {
            guard let regex = try? NSRegularExpression(pattern: pattern),
                let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), match.numberOfRanges > 1,
                let range = Range(match.range(at: 1), in: text)
            else { return nil }
            return String(text[range])
        }
    }

    func request(_ method: HTTPRequest.Method, _ uri: String, form: [String: String]? = nil, headers extra: HTTPFields = [:]) async throws -> Page {
        var headers = extra
        if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
        if let forwardedProto { headers[HTTPField.Name("X-Forwarded-Proto")!] = forwardedProto }
        var body: ByteBuffer?
        if let form {
            headers[.contentType] = "application/x-www-form-urlencoded"
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            body = ByteBuffer(
                string: form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&"))
        }
        let response = try await client.execute(uri: uri, method: method, headers: headers, body: body)
        for header in response.headers[values: .setCookie] {
            setCookieHeaders.append(header)
            let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0])
            let value = pair.count > 1 ? String(pair[1]) : ""
            if value.isEmpty || header.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
        }
        return Page(status: Int(response.status.code), text: String(buffer: response.body), headers: response.headers)
    }

    func get(_ uri: String) async throws -> Page { try await request(.get, uri) }

    func post(_ uri: String, _ form: [String: String]) async throws -> Page { try await request(.post, uri, form: form) }

    /// Signs in through the form; returns the answer to the form's post.
    @discardableResult
    func signIn(_ email: String, _ password: String) async throws -> Page {
        let form = try await get("/dashboard/sign-in")
        return try await post("/dashboard/sign-in", ["email": email, "password": password, "csrf": form.csrf ?? "", "next": "/dashboard"])
    }

    func forget(_ name: String) { cookies[name] = nil }
}
