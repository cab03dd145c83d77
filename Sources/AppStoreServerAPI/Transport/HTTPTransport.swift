import Foundation

/// Sends one HTTP request and returns the response, whatever its status.
///
/// The seam between Storekeeper's Apple clients and the network: the live value is
/// ``AsyncHTTPClientTransport``; tests and the App Store simulator use scripted or in-process
/// transports. A transport throws only when no HTTP response was received (connection refused,
/// timeout, TLS failure); 4xx and 5xx answers are returned as values.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response.
    func send(_ request: HTTPRequestValue) async throws -> HTTPResponseValue
}

/// An HTTP request as Storekeeper's Apple clients build it.
public struct HTTPRequestValue: Hashable, Sendable {
    /// `GET`, `POST`, `PUT` or `DELETE`.
    public var method: String
    /// The full URL, query included.
    public var url: URL
    /// Header fields in the order they are sent; names as written.
    public var headers: [(name: String, value: String)]
    /// The body, if any.
    public var body: Data?

    public init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The value of the first header field named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public static func == (lhs: HTTPRequestValue, rhs: HTTPRequestValue) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(body)
        for field in headers {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }
}

/// An HTTP response: status, header fields and body.
public struct HTTPResponseValue: Hashable, Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Header fields as received.
    public var headers: [String: String]
    /// The body (empty when there is none).
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the header field named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }
}
