import Foundation
import Hummingbird
import Logging
import StorekeeperApps
import StorekeeperHTTP
import StorekeeperStore

/// The dashboard and support console: server-rendered pages under `/dashboard` for the people
/// who run the apps — charts for viewers, customers and notifications for support, settings and
/// users for admins. Every page reads the same store, engine and analytics as the API.
package struct Dashboard: Sendable {
    package let api: StorekeeperAPI
    package let templates: DashboardTemplates
    package let configuration: DashboardConfiguration
    package let throttle = SignInThrottle()

    package init(api: StorekeeperAPI, templates: DashboardTemplates, configuration: DashboardConfiguration) {
        self.api = api
        self.templates = templates
        self.configuration = configuration
    }

    package var store: any StorekeeperStorage { api.store }
    package var clock: @Sendable () -> Date { api.clock }

    package func addRoutes(to router: Router<APIRequestContext>) {
        let group = router.group("dashboard").add(middleware: DashboardErrorMiddleware(templates: templates))
        group.get("assets/dashboard.css") { _, _ in templates.stylesheetResponse() }
        group.get("sign-in", use: signInPage)
        group.post("sign-in", use: signIn)
        let signedIn = group.group().add(middleware: DashboardAuthenticator(store: store, clock: clock))
        signedIn.get("", use: home)
            .post("sign-out", use: signOut)
        addChartRoutes(to: signedIn)
        addCustomerRoutes(to: signedIn)
        addOperationsRoutes(to: signedIn)
        addOfferingRoutes(to: signedIn)
        addRetentionMessagingRoutes(to: signedIn)
    }

    // MARK: - Sign-in

    package struct SignInModel {
        package var next: String
        package var email: String
        package var message: String?
        package var csrf: String
    }

    package func signInPage(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let next = Self.safeNext(request.uri.queryParameters.get("next"))
        return signInForm(request, next: next, email: "", message: nil, status: .ok)
    }

    /// The sign-in form with a fresh double-submit CSRF cookie (a visitor without a session has
    /// no session token to derive one from).
    private func signInForm(_ request: Request, next: String, email: String, message: String?, status: HTTPResponse.Status) -> Response {
        let token = SessionTokens.make()
        var response = templates.page(
            "sign-in", title: "Sign in", frame: nil, status: status,
            page: SignInModel(next: next, email: email, message: message, csrf: token))
        response.headers[values: .setCookie].append(
            SessionTokens.setCookie(SessionTokens.signInCookieName, token, maxAge: 3600, secure: SessionTokens.isSecure(request)))
        return response
    }

    package func signIn(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let form = try await Self.form(request, api: api)
        let next = Self.safeNext(form["next"])
        guard let posted = form["csrf"], let cookie = SessionTokens.cookie(SessionTokens.signInCookieName, in: request),
            SessionTokens.same(posted, cookie)
        else {
            throw DashboardError.csrf
        }
        let email = (form.text("email") ?? "").lowercased()
        let password = form["password"] ?? ""
        guard (3...254).contains(email.count), email.contains("@"), (1...1024).contains(password.utf8.count) else {
            return signInForm(request, next: next, email: String(email.prefix(254)), message: "Enter your email and password.", status: .badRequest)
        }
        let now = clock()
        let wait = await throttle.wait(account: email, address: context.remoteAddress, now: now)
        if wait > 0 {
            var response = signInForm(
                request, next: next, email: email,
                message: "Too many failed sign-ins. Try again in \(Int(wait.rounded(.up))) seconds.", status: .tooManyRequests)
            response.headers[.retryAfter] = "\(Int(wait.rounded(.up)))"
            return response
        }
        let user = try await store.dashboardUser(email: email)
        // A missing user costs the same hash as a wrong password: the timing tells nothing.
        let valid = PasswordHash.verify(password, against: user?.passwordHash ?? Self.decoyHash)
        guard let user, valid else {
            await throttle.failed(account: email, address: context.remoteAddress, now: now)
            return signInForm(request, next: next, email: email, message: "The email or password is not right.", status: .unauthorized)
        }
        await throttle.succeeded(account: email)
        let secure = SessionTokens.isSecure(request)
        let session = try await startSession(email: user.email, now: now, secure: secure)
        context.logger.notice("dashboard sign-in", metadata: ["user": "\(user.email)"])
        var response = Self.redirect(to: next)
        response.headers[values: .setCookie].append(session)
        response.headers[values: .setCookie].append(SessionTokens.setCookie(SessionTokens.signInCookieName, "", maxAge: 0, secure: secure))
        return response
    }

    /// Records a new session of `email` from `now`; returns the `Set-Cookie` value that carries it.
    package func startSession(email: String, now: Date, secure: Bool) async throws -> String {
        let token = SessionTokens.make()
        try await store.createDashboardSession(
            DashboardSession(
                tokenHash: SessionTokens.hash(token), email: email, createdAt: now,
                expiresAt: now.addingTimeInterval(configuration.sessionHours * 3600)))
        return SessionTokens.setCookie(SessionTokens.cookieName, token, maxAge: Int(configuration.sessionHours * 3600), secure: secure)
    }

    package func signOut(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let visitor = try Self.visitor(context)
        _ = try await Self.checkedForm(request, context, api: api)
        try await store.deleteDashboardSession(tokenHash: visitor.tokenHash)
        var response = Self.redirect(to: "/dashboard/sign-in")
        response.headers[values: .setCookie].append(
            SessionTokens.setCookie(SessionTokens.cookieName, "", maxAge: 0, secure: SessionTokens.isSecure(request)))
        return response
    }

    /// A hash no password matches, verified when the account does not exist.
    package static let decoyHash = (try? PasswordHash.make(SessionTokens.make())) ?? ""

    /// `/dashboard`: the first app the visitor may open.
    package func home(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let visitor = try Self.visitor(context)
        guard let app = api.apps.apps.keys.sorted().first(where: visitor.user.mayOpen(appId:)) else {
            return templates.page(
                "message", title: "No apps", frame: frame(visitor, app: nil, section: ""), status: .ok,
                page: ["message": "Your account has no apps yet. An admin can give you some with storekeeper user add."])
        }
        return Self.redirect(to: "/dashboard/apps/\(Self.pathComponent(app))/overview")
    }

    // MARK: - Shared

    /// The redirect after a form (303, so the browser follows with GET).
    package static func redirect(to location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// `next` only when it is a dashboard path of this server (no open redirect).
    package static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/dashboard"), !next.hasPrefix("//"), !next.contains("\\"), next.utf8.count <= 512,
            next.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { return "/dashboard" }
        return next
    }

    package static func pathComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#;"))) ?? text
    }

    package static func queryComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    package static func visitor(_ context: APIRequestContext) throws -> DashboardVisitor {
        guard let visitor = context.visitor else { throw DashboardError.signInNeeded }
        return visitor
    }

    /// The app in the path, when the visitor may open it (404 otherwise: another app's data does
    /// not exist for them).
    package func app(_ context: APIRequestContext) throws -> (DashboardVisitor, AppRuntime) {
        let visitor = try Self.visitor(context)
        let id = try context.pathParameter("appId")
        guard visitor.user.mayOpen(appId: id), let app = api.apps.apps[id] else { throw DashboardError.notFound }
        return (visitor, app)
    }

    /// The app, for a support page or action (403 for a viewer).
    package func supportApp(_ context: APIRequestContext) throws -> (DashboardVisitor, AppRuntime) {
        let (visitor, app) = try app(context)
        guard visitor.mayWorkOnCustomers else { throw DashboardError.forbidden("Your role (viewer) may read charts only.") }
        return (visitor, app)
    }

    /// The app, for an admin page or action (403 otherwise).
    package func adminApp(_ context: APIRequestContext) throws -> (DashboardVisitor, AppRuntime) {
        let (visitor, app) = try app(context)
        guard visitor.isAdmin else { throw DashboardError.forbidden("This page is for admins.") }
        return (visitor, app)
    }

    /// A posted form (at most 64 KiB).
    package static func form(_ request: Request, api: StorekeeperAPI) async throws -> FormFields {
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        guard contentType.hasPrefix("application/x-www-form-urlencoded") else {
            throw DashboardError.badRequest("The form must be posted as application/x-www-form-urlencoded.")
        }
        let buffer = try await api.collectBody(request, upTo: 64 * 1024)
        guard let fields = FormFields(body: String(decoding: buffer.readableBytesView, as: UTF8.self)) else {
            throw DashboardError.badRequest("The form could not be read.")
        }
        return fields
    }

    /// A posted form of a signed-in visitor, refused (403) unless it carries the session's CSRF token.
    package static func checkedForm(_ request: Request, _ context: APIRequestContext, api: StorekeeperAPI) async throws -> FormFields {
        let visitor = try visitor(context)
        let form = try await form(request, api: api)
        guard let token = form["csrf"], SessionTokens.same(token, visitor.csrf) else { throw DashboardError.csrf }
        return form
    }

    /// The layout's values: the visitor, the app switcher, the sections their role may open.
    package func frame(_ visitor: DashboardVisitor, app: AppRuntime?, section: String, notice: String? = nil) -> DashboardFrame {
        let apps = api.apps.apps.keys.sorted().filter(visitor.user.mayOpen(appId:))
        var sections: [(String, String)] = [("overview", "Overview"), ("charts", "Charts"), ("cohorts", "Cohorts")]
        if visitor.mayWorkOnCustomers {
            sections += [("customers", "Customers"), ("notifications", "Notifications"), ("problems", "Problems"), ("audit", "Audit log")]
        }
        if visitor.isAdmin {
            sections += [("offerings", "Offerings"), ("retention-messages", "Retention messages"), ("settings", "Settings"), ("users", "Users")]
        }
        return DashboardFrame(
            email: visitor.user.email, role: visitor.user.role.rawValue, csrf: visitor.csrf, appId: app?.id,
            currency: app?.configuration.analytics.reportingCurrency, timeZone: app?.configuration.analytics.timeZone,
            apps: apps.map {
                .init(id: $0, href: "/dashboard/apps/\(Self.pathComponent($0))/\(section.isEmpty ? "overview" : section)", current: $0 == app?.id)
            },
            sections: app.map { app in
                sections.map { .init(label: $0.1, href: "/dashboard/apps/\(Self.pathComponent(app.id))/\($0.0)", current: $0.0 == section) }
            } ?? [],
            notice: notice, hasManyApps: apps.count > 1)
    }
}

/// What every signed-in page's layout shows.
package struct DashboardFrame: Sendable {
    package struct Link: Sendable {
        package var id: String? = nil
        package var label: String = ""
        package var href: String
        package var current: Bool
        package init(id: String, href: String, current: Bool) {
            self.id = id
            self.label = id
            self.href = href
            self.current = current
        }
        package init(label: String, href: String, current: Bool) {
            self.label = label
            self.href = href
            self.current = current
        }
    }
    package var email: String
    package var role: String
    package var csrf: String
    package var appId: String?
    package var currency: String?
    package var timeZone: String?
    package var apps: [Link]
    package var sections: [Link]
    package var notice: String?
    /// Stored (templates read values by reflection, which sees no computed property).
    package var hasManyApps: Bool
}

/// Finds the visitor's session from its cookie. A page without one redirects to sign-in; a form
/// post without one is refused.
package struct DashboardAuthenticator: RouterMiddleware {
    package typealias Context = APIRequestContext
    package let store: any StorekeeperStorage
    package let clock: @Sendable () -> Date

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let token = SessionTokens.cookie(SessionTokens.cookieName, in: request),
            let session = try await store.dashboardSession(tokenHash: SessionTokens.hash(token), now: clock()),
            let user = try await store.dashboardUser(email: session.email)
        {
            context.visitor = DashboardVisitor(user: user, tokenHash: session.tokenHash, csrf: SessionTokens.csrf(for: token))
            return try await next(request, context)
        }
        guard request.method == .get || request.method == .head else { throw DashboardError.signInNeeded }
        let next = Dashboard.safeNext(request.uri.path + (request.uri.query.map { "?" + $0 } ?? ""))
        return Dashboard.redirect(to: "/dashboard/sign-in?next=" + Dashboard.queryComponent(next))
    }
}

/// Why a dashboard request failed, shown as a page with its status.
package struct DashboardError: Error, Sendable {
    package var status: HTTPResponse.Status
    package var message: String

    package static let csrf = DashboardError(
        status: .forbidden, message: "The form was refused: it did not carry this session's security token. Reload the page and try again.")
    package static let signInNeeded = DashboardError(status: .forbidden, message: "Sign in first.")
    package static let notFound = DashboardError(status: .notFound, message: "There is nothing here, or it is not yours to see.")
    package static func forbidden(_ message: String) -> DashboardError { DashboardError(status: .forbidden, message: message) }
    package static func badRequest(_ message: String) -> DashboardError { DashboardError(status: .badRequest, message: message) }
}

/// Turns failures under `/dashboard` into HTML pages (the API's JSON errors stay for the API),
/// and adds the dashboard's security headers to every answer.
package struct DashboardErrorMiddleware: RouterMiddleware {
    package typealias Context = APIRequestContext
    package let templates: DashboardTemplates

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as DashboardError {
            response = templates.errorPage(status: error.status, message: error.message)
        } catch let error as APIError {
            response = templates.errorPage(status: error.status, message: error.message)
        } catch let error as StoreError where error.code == .unavailable {
            response = templates.errorPage(status: .serviceUnavailable, message: "The database is unavailable; try again shortly.")
            response.headers[.retryAfter] = "5"
        } catch let error as HTTPResponseError {
            response = templates.errorPage(status: error.status, message: error.status.reasonPhrase)
        } catch {
            context.logger.error("dashboard request failed", metadata: ["error": "\(String(describing: error).prefix(300))"])
            response = templates.errorPage(status: .internalServerError, message: "The server could not complete the request.")
        }
        response.headers[.init("Content-Security-Policy")!] =
            "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        response.headers[.init("X-Frame-Options")!] = "DENY"
        response.headers[.init("X-Content-Type-Options")!] = "nosniff"
        response.headers[.init("Referrer-Policy")!] = "same-origin"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
