import Foundation
import Hummingbird
import StorekeeperApps

/// Authenticates RevenueCat v2's `Authorization: Bearer sk_…` for the project in the path.
///
/// - The bearer is a configured v2 secret key (``AppDirectory/revenueCatSecret(_:)``) or a
///   Storekeeper API key (app or admin) of an app; customer tokens and the public SDK keys are
///   refused (401 `authentication_error`), like any unknown credential.
/// - A key opens the RevenueCat project of its app, all of it (v2 secret keys are
///   project-wide, as Storekeeper's own `/v1/projects/…` route already reads a project with any
///   of its apps' keys). Another project, known or not, is 404 `resource_missing`: a key
///   cannot tell which projects exist.
///
/// The caller lands in ``APIRequestContext/access`` (the key's app and principal).
package struct RevenueCatV2Authenticator: RouterMiddleware {
    package typealias Context = APIRequestContext

    package let apps: AppDirectory
    package let clock: @Sendable () -> Date

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.access = try authenticate(request, context)
        return try await next(request, context)
    }

    package func authenticate(_ request: Request, _ context: Context) throws -> APIAccess {
        guard let credential = APIAuthenticator.bearerCredential(request) else { throw RevenueCatV2Error.unauthenticated }
        // Both lookups run for every credential (each compares with every key, constant time).
        let secret = apps.revenueCatSecret(credential)
        let key = apps.authenticate(credential, appId: "", now: clock())
        guard let principal = secret ?? key.flatMap({ $0.role == nil ? nil : $0 }), let app = apps.apps[principal.appId] else {
            throw RevenueCatV2Error.unauthenticated
        }
        if context.parameters.get("projectId") != nil {
            let projectId = try context.pathParameter("projectId")
            guard projectId == apps.revenueCatProjectId(of: app.configuration) else { throw RevenueCatV2Error.projectNotFound }
        }
        return APIAccess(app: app, principal: principal)
    }
}
