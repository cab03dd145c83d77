import AppStoreServerAPI
import Foundation

/// An ``HTTPTransport`` that answers from a script and records every request.
///
/// Each expected request names its method and path (query ignored unless given); the answer is
/// a response or a transport error. A request nobody expected, or one out of order, is
/// recorded as a failure and answered with ``UnexpectedRequest`` so the test fails loudly;
/// ``unmetExpectations`` lists what was scripted but never asked.
public actor ScriptedTransport: HTTPTransport {
    /// One scripted exchange.
    public struct Expectation: Sendable {
        public var method: String
        public var path: String
        public var query: String?
        public var answer: Result<HTTPResponseValue, ScriptedTransportError>

        public init(method: String, path: String, query: String? = nil, answer: Result<HTTPResponseValue, ScriptedTransportError>) {
            self.method = method
            self.path = path
            self.query = query
            self.answer = answer
        }
    }

    /// The error thrown for a request the script did not expect.
    public struct UnexpectedRequest: Error, CustomStringConvertible {
        public var description: String
    }

    private var script: [Expectation]
    private let ordered: Bool
    /// Every request received, in order.
    public private(set) var requests: [HTTPRequestValue] = []
    /// Descriptions of requests the script did not expect.
    public private(set) var failures: [String] = []

    /// A transport answering `script`; in order when `ordered`, otherwise by first match.
    public init(_ script: [Expectation] = [], ordered: Bool = true) {
        self.script = script
        self.ordered = ordered
    }

    /// Adds an expectation at the end of the script.
    public func expect(_ method: String, _ path: String, query: String? = nil, respond response: HTTPResponseValue) {
        script.append(Expectation(method: method, path: path, query: query, answer: .success(response)))
    }

    /// Adds an expectation answered with a transport error.
    public func expect(_ method: String, _ path: String, query: String? = nil, fail error: ScriptedTransportError) {
        script.append(Expectation(method: method, path: path, query: query, answer: .failure(error)))
    }

    /// Scripted exchanges never requested.
    public var unmetExpectations: [String] { script.map { "\($0.method) \($0.path)" } }

    public func send(_ request: HTTPRequestValue) async throws -> HTTPResponseValue {
        requests.append(request)
        let path = request.url.path
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery
        let matches = { (expectation: Expectation) in
            expectation.method == request.method && expectation.path == path
                && (expectation.query == nil || expectation.query == query)
        }
        let index: Int?
        if ordered {
            index = script.first.map(matches) == true ? 0 : nil
        } else {
            index = script.firstIndex(where: matches)
        }
        guard let index else {
            let next = script.first.map { "\($0.method) \($0.path)" } ?? "nothing"
            let message = "unexpected request \(request.method) \(request.url.absoluteString); expected \(next)"
            failures.append(message)
            throw UnexpectedRequest(description: message)
        }
        let expectation = script.remove(at: index)
        return try expectation.answer.get()
    }
}

/// A transport failure a script can answer with (a refused connection, a timeout).
public struct ScriptedTransportError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

extension HTTPResponseValue {
    /// A JSON response with `body` as given.
    public static func json(_ status: Int, _ body: String, headers: [String: String] = [:]) -> HTTPResponseValue {
        var all = headers
        all["Content-Type"] = "application/json"
        return HTTPResponseValue(status: status, headers: all, body: Data(body.utf8))
    }

    /// A JSON response with a file's bytes as the body.
    public static func json(_ status: Int, data: Data, headers: [String: String] = [:]) -> HTTPResponseValue {
        var all = headers
        all["Content-Type"] = "application/json"
        return HTTPResponseValue(status: status, headers: all, body: data)
    }
}
