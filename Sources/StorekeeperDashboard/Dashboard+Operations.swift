import AppStoreModels
import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperHTTP
import StorekeeperStore

/// Notifications, the audit log, settings and users.
extension Dashboard {
    package func addOperationsRoutes(to group: RouterGroup<APIRequestContext>) {
        group.get("apps/:appId/notifications", use: notifications)
            .get("apps/:appId/notifications/:notificationId", use: notification)
            .get("apps/:appId/audit", use: audit)
            .get("apps/:appId/settings", use: settings)
            .post("apps/:appId/settings/test-notification", use: testNotification)
            .get("apps/:appId/problems", use: problemsPage)
            .post("apps/:appId/problems/:problemId/resolve", use: resolveProblemForm)
            .get("apps/:appId/users", use: users)
            .post("apps/:appId/users", use: saveUser)
    }

    // MARK: - Notifications

    package struct NotificationsModel {
        package struct Row {
            package var id: Int64
            package var href: String
            package var received: String
            package var type: String
            package var subtype: String
            package var state: String
            package var reason: String
            package var originalTransactionId: String
            package var environment: String
        }
        package struct Option {
            package var value: String
            package var selected: Bool
        }
        package var type: String
        package var subtype: String
        package var states: [Option]
        package var originalTransactionId: String
        package var from: String
        package var to: String
        package var rows: [Row]
        package var action: String
    }

    package func notifications(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try supportApp(context)
        let parameters = request.uri.queryParameters
        func text(_ name: String) throws -> String? {
            guard let value = parameters.get(name)?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
            guard value.utf8.count <= 128, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
                throw DashboardError.badRequest("\(name) must be at most 128 letters, digits, - or _")
            }
            return value
        }
        var filter = NotificationFilter(limit: 200)
        filter.notificationType = try text("type")?.uppercased()
        filter.subtype = try text("subtype")?.uppercased()
        filter.originalTransactionId = try text("originalTransactionId")
        if let state = try text("state") {
            guard let value = InboxState(rawValue: state) else { throw DashboardError.badRequest("unknown state \(state)") }
            filter.state = value
        }
        let days = DayFormat(timeZone: app.configuration.analytics.timeZone)
        if let from = try text("from") {
            guard let day = days.date(from) else { throw DashboardError.badRequest("from must be a day, YYYY-MM-DD") }
            filter.receivedFrom = day
        }
        if let to = try text("to") {
            guard let day = days.date(to) else { throw DashboardError.badRequest("to must be a day, YYYY-MM-DD") }
            filter.receivedBefore = days.calendar.date(byAdding: .day, value: 1, to: day)
        }
        let rows = try await api.reads.notifications(appId: app.id, filter: filter)
        let base = "/dashboard/apps/\(Self.pathComponent(app.id))/notifications"
        let model = NotificationsModel(
            type: filter.notificationType ?? "", subtype: filter.subtype ?? "",
            states: [NotificationsModel.Option(value: "", selected: filter.state == nil)]
                + InboxState.allCases.map { NotificationsModel.Option(value: $0.rawValue, selected: $0 == filter.state) },
            originalTransactionId: filter.originalTransactionId ?? "", from: filter.receivedFrom.map(days.text) ?? "",
            to: (try text("to")) ?? "",
            rows: rows.map { row in
                .init(
                    id: row.id ?? 0, href: "\(base)/\(row.id ?? 0)", received: days.instant(row.receivedAt),
                    type: row.metadata?.notificationType ?? (row.version == .v1 ? "V1" : "–"), subtype: row.metadata?.subtype ?? "",
                    state: row.state.rawValue, reason: row.failureReason ?? "", originalTransactionId: row.metadata?.originalTransactionId ?? "",
                    environment: row.metadata?.environment ?? "")
            }, action: base)
        return templates.page("notifications", title: "Notifications", frame: frame(visitor, app: app, section: "notifications"), page: model)
    }

    package struct NotificationModel {
        package var id: Int64
        package var received: String
        package var version: Int
        package var state: String
        package var reason: String?
        package var type: String
        package var subtype: String
        package var uuid: String
        package var originalTransactionId: String
        package var customerHref: String?
        package var attempts: Int
        package var decoded: String
    }

    package func notification(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try supportApp(context)
        guard let id = Int64(try context.pathParameter("notificationId")), let row = try await store.notification(id: id), row.appId == app.id else {
            throw DashboardError.notFound
        }
        let days = DayFormat(timeZone: app.configuration.analytics.timeZone)
        let body = NotificationResponse.redactingPassword(row.body)
        let chain = row.metadata?.originalTransactionId
        let owner = try await chain.asyncMap { try await store.customer(appId: app.id, alias: .originalTransactionId($0)) } ?? nil
        let model = NotificationModel(
            id: id, received: days.instant(row.receivedAt), version: row.version.rawValue, state: row.state.rawValue, reason: row.failureReason,
            type: row.metadata?.notificationType ?? "", subtype: row.metadata?.subtype ?? "", uuid: row.metadata?.notificationUUID ?? "",
            originalTransactionId: chain ?? "", customerHref: owner.map { customerHref(app, $0) }, attempts: row.attempts,
            decoded: body.isEmpty
                ? "The body was removed by retention (retention.inboxBodiesDays); what Apple signed in it is in the ledger."
                : SignedPayloadText.decode(body) ?? body)
        return templates.page("notification", title: "Notification \(id)", frame: frame(visitor, app: app, section: "notifications"), page: model)
    }

    // MARK: - Problems

    package struct ProblemsModel {
        package struct Row {
            package var id: Int64
            package var kind: String
            package var status: String
            package var isOpen: Bool
            package var summary: String
            package var customer: String?
            package var customerHref: String?
            package var money: String
            package var occurrences: Int
            package var opened: String
            package var resolved: String
            package var evidence: String
            package var action: String
        }
        package struct Option {
            package var value: String
            package var selected: Bool
        }
        package var rows: [Row]
        package var statuses: [Option]
        package var notice: String?
    }

    package func problemsPage(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try supportApp(context)
        let text = request.uri.queryParameters.get("status") ?? "open"
        let status = text == "all" ? nil : ProblemStatus(rawValue: text)
        guard text == "all" || status != nil else { throw DashboardError.badRequest("status must be open, resolved, noted or all") }
        let days = DayFormat(timeZone: app.configuration.analytics.timeZone)
        let base = "/dashboard/apps/\(Self.pathComponent(app.id))/problems"
        let rows = try await store.problems(appId: app.id, status: status, limit: 500).map { problem in
            ProblemsModel.Row(
                id: problem.id ?? 0, kind: problem.kind, status: problem.status.rawValue, isOpen: problem.status == .open, summary: problem.summary,
                customer: problem.customerId, customerHref: problem.customerId.map { customerHref(app, $0) },
                money: problem.amount.map { "\($0) \(problem.currency ?? "")" } ?? "", occurrences: problem.occurrences,
                opened: days.instant(problem.openedAt),
                resolved: problem.resolvedAt.map { days.instant($0) + " by " + (problem.resolvedBy ?? "") } ?? "",
                evidence: problem.evidence.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n"),
                action: "\(base)/\(problem.id ?? 0)/resolve")
        }
        let model = ProblemsModel(
            rows: rows, statuses: ["open", "resolved", "noted", "all"].map { .init(value: $0, selected: $0 == text) },
            notice: request.uri.queryParameters.get("resolved").map { "Problem \($0) resolved." })
        return templates.page("problems", title: "Problems", frame: frame(visitor, app: app, section: "problems"), page: model)
    }

    package func resolveProblemForm(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try supportApp(context)
        let form = try await Self.checkedForm(request, context, api: api)
        guard let id = Int64(try context.pathParameter("problemId")) else { throw DashboardError.notFound }
        guard let reason = form.text("reason"), reason.count <= 1000 else {
            throw DashboardError.badRequest("Give a reason (at most 1,000 characters).")
        }
        guard try await api.resolveProblem(id: id, app: app, actor: visitor.actor, reason: reason) != nil else { throw DashboardError.notFound }
        return Self.redirect(to: "/dashboard/apps/\(Self.pathComponent(app.id))/problems?resolved=\(id)")
    }

    // MARK: - Audit log

    package struct AuditModel {
        package struct Row {
            package var at: String
            package var actor: String
            package var action: String
            package var customer: String?
            package var customerHref: String?
            package var reason: String
            package var details: String
        }
        package var rows: [Row]
    }

    package func audit(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try supportApp(context)
        let days = DayFormat(timeZone: app.configuration.analytics.timeZone)
        let rows = try await api.reads.auditEntries(appId: app.id, limit: 500).map { entry in
            AuditModel.Row(
                at: days.instant(entry.at), actor: entry.actor, action: entry.action, customer: entry.customerId,
                customerHref: entry.customerId.map { customerHref(app, $0) }, reason: entry.reason ?? "",
                details: entry.details.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        return templates.page("audit", title: "Audit log", frame: frame(visitor, app: app, section: "audit"), page: AuditModel(rows: rows))
    }

    // MARK: - Settings

    package struct SettingsModel {
        package var configuration: String
        package var hasAppleAccess: Bool
        package var action: String
        package var result: String?
        package var schemaVersion: Int
        package var database: String
    }

    package func settings(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try adminApp(context)
        let result: String? =
            switch request.uri.queryParameters.get("test") {
            case "requested": "Apple accepted the request for a test notification; it appears under Notifications (type TEST) when it arrives."
            default: nil
            }
        let model = SettingsModel(
            configuration: Self.maskedConfiguration(app.configuration), hasAppleAccess: api.appleClients.client(for: app.id) != nil,
            action: "/dashboard/apps/\(Self.pathComponent(app.id))/settings/test-notification", result: result,
            schemaVersion: try await store.schemaVersion(), database: store.backendName)
        return templates.page("settings", title: "Settings", frame: frame(visitor, app: app, section: "settings"), page: model)
    }

    /// The app's configuration as the server understood it, as JSON with every secret replaced
    /// by its fingerprint.
    package static func maskedConfiguration(_ configuration: AppConfiguration) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .timestamp
        guard let data = try? encoder.encode(configuration), let object = try? JSONSerialization.jsonObject(with: data) else { return "{}" }
        let masked = mask(object)
        guard let text = try? JSONSerialization.data(withJSONObject: masked, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) else {
            return "{}"
        }
        return String(decoding: text, as: UTF8.self)
    }

    package static let secretFields: Set<String> = [
        "sharedSecret", "key", "privateKey", "customerTokenSecret", "secret", "secrets", "password", "botToken", "apiKey", "serviceAccountSecret",
        "authorization",
    ]

    private static func mask(_ object: Any) -> Any {
        if let dictionary = object as? [String: Any] {
            var result: [String: Any] = [:]
            for (name, value) in dictionary {
                if secretFields.contains(name), let secret = value as? String {
                    result[name] = "•••••• (set; fingerprint \(KeyFingerprint.of(secret)))"
                } else if secretFields.contains(name), let secrets = value as? [String] {
                    result[name] = secrets.map { "•••••• (set; fingerprint \(KeyFingerprint.of($0)))" }
                } else {
                    result[name] = mask(value)
                }
            }
            return result
        }
        if let array = object as? [Any] { return array.map(mask) }
        return object
    }

    package func testNotification(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try adminApp(context)
        _ = try await Self.checkedForm(request, context, api: api)
        let client = try api.appleClient(app)
        let answer = try await api.callApple { try await client.requestTestNotification() }
        let now = clock()
        try await api.audit(
            .requestTestNotification, app: app, actor: visitor.actor, reason: "settings: test Apple credentials",
            details: ["testNotificationToken": answer.testNotificationToken ?? "none"], at: now)
        return Self.redirect(to: "/dashboard/apps/\(Self.pathComponent(app.id))/settings?test=requested")
    }

    // MARK: - Users

    package struct UsersModel {
        package struct Row {
            package var email: String
            package var role: String
            package var apps: String
        }
        package var rows: [Row]
        package var roles: [String]
        package var action: String
        package var notice: String?
        /// The apps field's label: an admin limited to some apps names them (only those may be given).
        package var appsLabel: String
        package var appsRequired: Bool
    }

    /// The users the visitor may manage (an admin limited to some apps sees only users within them).
    package func users(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try adminApp(context)
        let rows = try await store.dashboardUsers().filter(visitor.user.mayManage).map {
            UsersModel.Row(email: $0.email, role: $0.role.rawValue, apps: $0.apps?.joined(separator: ", ") ?? "all apps")
        }
        let notice = request.uri.queryParameters.get("saved").map { "Saved \($0)." }
        let own = visitor.user.apps?.sorted().joined(separator: ", ")
        return templates.page(
            "users", title: "Users", frame: frame(visitor, app: app, section: "users"),
            page: UsersModel(
                rows: rows, roles: DashboardUser.Role.allCases.map(\.rawValue),
                action: "/dashboard/apps/\(Self.pathComponent(app.id))/users", notice: notice,
                appsLabel: own.map { "Apps (comma-separated, among \($0))" } ?? "Apps (comma-separated; empty for all)", appsRequired: own != nil))
    }

    /// Adds a user or changes one's password, role and apps (admin); audited in this app. An
    /// admin limited to some apps changes only users within them and gives only those apps
    /// (``DashboardUser/mayManage(_:)``). The new password ends the user's sessions; the
    /// visitor's own goes on under a new token when they changed themselves.
    package func saveUser(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try adminApp(context)
        let form = try await Self.checkedForm(request, context, api: api)
        guard let email = form.text("email")?.lowercased(), email.contains("@"), (3...254).contains(email.count) else {
            throw DashboardError.badRequest("Enter the user's email.")
        }
        guard let role = form.text("role").flatMap(DashboardUser.Role.init(rawValue:)) else { throw DashboardError.badRequest("Choose a role.") }
        let password = form["password"] ?? ""
        do {
            try PasswordHash.check(password)
        } catch {
            throw DashboardError.badRequest("The password is refused: \(error.description).")
        }
        let listed = form.text("apps").map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        let apps = listed?.isEmpty == true ? nil : listed
        guard visitor.user.mayGive(apps: apps) else {
            let own = visitor.user.apps?.sorted().joined(separator: ", ") ?? ""
            throw DashboardError.forbidden("You may give only your own apps (\(own)): name them in the apps field.")
        }
        if let unknown = apps?.first(where: { api.apps.apps[$0] == nil }) { throw DashboardError.badRequest("There is no app \(unknown).") }
        let existing = try await store.dashboardUser(email: email)
        if let existing, !visitor.user.mayManage(existing) {
            throw DashboardError.forbidden("You may not change \(email): they see apps beyond yours.")
        }
        let now = clock()
        try await store.saveDashboardUser(
            DashboardUser(
                email: email, passwordHash: try PasswordHash.make(password), role: role, apps: apps, createdAt: existing?.createdAt ?? now,
                updatedAt: now))
        try await api.audit(
            existing == nil ? .addDashboardUser : .changeDashboardUser, app: app, actor: visitor.actor, reason: "users page",
            details: ["email": email, "role": role.rawValue, "apps": apps?.joined(separator: ",") ?? "all"], at: now)
        var response = Self.redirect(to: "/dashboard/apps/\(Self.pathComponent(app.id))/users?saved=" + Self.queryComponent(email))
        if email == visitor.user.email {
            response.headers[values: .setCookie].append(try await startSession(email: email, now: now, secure: SessionTokens.isSecure(request)))
        }
        return response
    }
}
