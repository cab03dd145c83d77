import Foundation
import Hummingbird
import Logging
import StorekeeperApps
import StorekeeperStore

/// The API's request context: Hummingbird's core, the caller that ``APIAuthenticator`` found,
/// and the API's JSON encoder (so handlers return `ResponseEncodable` values).
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The authenticated app and credential; set on every route under `/v1/apps/:appId` except
    /// the notification URL, which Apple calls without a key.
    package var access: APIAccess?
    /// The dashboard's signed-in visitor, as ``DashboardAuthenticator`` found it.
    package var visitor: DashboardVisitor?
    /// The client's IP address (the socket's peer; sign-in attempts are counted by it).
    package let remoteAddress: String?

    public init(source: Source) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
    }

    public var responseEncoder: JSONEncoder { JSONBody.encoder() }

    /// The caller, as the authenticator middleware left it (401 on a route without one).
    package func caller() throws -> APIAccess {
        guard let access else { throw APIError.unauthorized }
        return access
    }

    /// A path parameter, percent-decoded (`a%20b` and its decoded form name the same thing)
    /// and checked: 1 to 256 bytes, no control characters.
    package func pathParameter(_ name: String) throws -> String {
        let raw = try parameters.require(name)
        // Printable ASCII (the usual ids) needs no look at Unicode's control characters.
        guard let value = raw.utf8.contains(UInt8(ascii: "%")) ? raw.removingPercentEncoding : raw,
            (1...256).contains(value.utf8.count),
            value.utf8.allSatisfy({ (0x20...0x7E).contains($0) })
                || !value.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) })
        else {
            throw APIError.badRequest("\(name) must be 1 to 256 characters (percent-encoded in the path) without control characters")
        }
        return value
    }

    /// The `customerId` path parameter: printable, no spaces.
    package func customerId() throws -> String {
        let id = try pathParameter("customerId")
        guard id.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
            throw APIError.badRequest("customerId must be 1 to 256 printable characters")
        }
        return id
    }
}

/// Who is calling: the app the path names and the credential that opened it.
package struct APIAccess: Sendable {
    package let app: AppRuntime
    package let principal: APIPrincipal
}

/// What a group of routes asks of its caller.
package enum AccessPolicy: Sendable {
    /// Any of the app's keys (no customer token).
    case key
    /// An admin key.
    case admin
    /// A key, or the customer token of the customer in the path.
    case pathCustomer
    /// A key, or any of the app's customer tokens: the handler compares the body's customer
    /// with the token's.
    case bodyCustomer
}

/// Authenticates `Authorization: Bearer <key or customer token>` for the app in the path and
/// applies the group's ``AccessPolicy``: 401 without a valid credential, 404 when it belongs to
/// another app (another tenant's data does not exist for it), 403 when the role or the
/// token's customer does not fit. Handlers read the result from ``APIRequestContext/caller()``.
package struct APIAuthenticator: RouterMiddleware {
    package typealias Context = APIRequestContext

    package let apps: AppDirectory
    package let clock: @Sendable () -> Date
    package let policy: AccessPolicy

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.access = try authenticate(request, context)
        return try await next(request, context)
    }

    package func authenticate(_ request: Request, _ context: Context) throws -> APIAccess {
        guard let credential = Self.bearerCredential(request) else { throw APIError.unauthorized }
        let appId = try context.pathParameter("appId")
        guard let principal = apps.authenticate(credential, appId: appId, now: clock()) else { throw APIError.unauthorized }
        guard principal.appId == appId, let app = apps.apps[appId] else { throw APIError.notFound }
        if let tokenCustomer = principal.customerId {
            switch policy {
            case .pathCustomer where CustomerId.same(try context.customerId(), tokenCustomer): break
            case .bodyCustomer: break
            default: throw Self.customerTokenRefused
            }
        } else if policy == .admin, principal.role != .admin {
            throw APIError(.forbidden, code: .forbidden, message: "this action needs an admin key")
        }
        return APIAccess(app: app, principal: principal)
    }

    package static let customerTokenRefused = APIError(
        .forbidden, code: .forbidden, message: "a customer token may only read and act for its own customer")

    /// The credential of `Authorization: Bearer <credential>` (the scheme in any case).
    package static func bearerCredential(_ request: Request) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        let trimmed = trimmingBlanks(Substring(header))
        guard trimmed.utf8.count > 7, trimmed.prefix(7).lowercased() == "bearer " else { return nil }
        let credential = trimmingBlanks(trimmed.dropFirst(7))
        return credential.isEmpty ? nil : String(credential)
    }

    /// `text` without the spaces and tabs at its ends.
    package static func trimmingBlanks(_ text: Substring) -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) }) else { return "" }
        return text[first...last]
    }
}
