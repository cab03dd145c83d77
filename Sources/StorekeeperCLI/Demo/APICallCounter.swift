import Foundation
import Hummingbird
import Synchronization

/// Counts the App Store Server API calls the simulator answers, by endpoint path shape, so the
/// demo can report what reconciliation cost.
final class APICallCounter: RouterMiddleware, Sendable {
    typealias Context = BasicRequestContext
    private let counts = Mutex([String: Int]())

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/inApps/") {
            let name = Self.name(of: path, method: request.method.rawValue)
            counts.withLock { $0[name, default: 0] += 1 }
        }
        return try await next(request, context)
    }

    /// The counts so far.
    var snapshot: [String: Int] { counts.withLock { $0 } }

    /// Every call so far.
    var total: Int { snapshot.values.reduce(0, +) }

    /// `GET /inApps/v1/subscriptions/2000…` → `GET subscriptions`: the endpoint without ids.
    static func name(of path: String, method: String) -> String {
        let parts = path.split(separator: "/").dropFirst(2).filter { part in !part.allSatisfy(\.isNumber) && part.count < 40 }
        return "\(method) " + parts.prefix(2).joined(separator: "/")
    }
}
