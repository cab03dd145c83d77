import AppStoreModels
import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperHTTP
import StorekeeperStore

/// Retention messages (admins): the app's Retention Messaging content at Apple — messages and
/// images with their review states, the default messages set through Storekeeper — and forms
/// to upload a message, delete one, and set or remove the default of a product and locale.
/// Every change goes to Apple through the app's App Store Server API client and is audited.
///
/// Apple has no call that lists default messages, so the page shows the latest default of
/// each product and locale recorded in the audit log (what was set here).
extension Dashboard {
    package func addRetentionMessagingRoutes(to group: RouterGroup<APIRequestContext>) {
        group.get("apps/:appId/retention-messages", use: retentionMessagesPage)
            .post("apps/:appId/retention-messages/messages", use: uploadRetentionMessageForm)
            .post("apps/:appId/retention-messages/messages/:messageId/delete", use: deleteRetentionMessageForm)
            .post("apps/:appId/retention-messages/defaults", use: setDefaultRetentionMessageForm)
            .post("apps/:appId/retention-messages/defaults/delete", use: deleteDefaultRetentionMessageForm)
    }

    package struct RetentionMessagesModel {
        package struct Item {
            package var id: String
            package var state: String
            package var size: String
            package var deleteAction: String
        }
        package struct Default {
            package var productId: String
            package var locale: String
            package var messageIdentifier: String
            package var actor: String
            package var at: String
        }
        package var hasAppleAccess: Bool
        package var messages: [Item]
        package var images: [Item]
        package var defaults: [Default]
        package var productIds: [String]
        package var uploadAction: String
        package var defaultAction: String
        package var deleteDefaultAction: String
        package var notice: String?
        package var error: String?
    }

    package func retentionMessagesPage(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try adminApp(context)
        let notice = request.uri.queryParameters.get("done").map { "Done: \($0)." }
        return try await retentionMessagesPage(visitor: visitor, app: app, notice: notice, error: nil, status: .ok)
    }

    /// The page, with Apple's lists fetched now; a failure to fetch them is shown, not thrown.
    private func retentionMessagesPage(
        visitor: DashboardVisitor, app: AppRuntime, notice: String?, error: String?, status: HTTPResponse.Status
    ) async throws -> Response {
        let base = "/dashboard/apps/\(Self.pathComponent(app.id))/retention-messages"
        var model = RetentionMessagesModel(
            hasAppleAccess: false, messages: [], images: [], defaults: try await recordedDefaults(app: app),
            productIds: app.configuration.products.map(\.productId),
            uploadAction: "\(base)/messages", defaultAction: "\(base)/defaults", deleteDefaultAction: "\(base)/defaults/delete", notice: notice,
            error: error)
        if let client = api.appleClients.client(for: app.id) {
            model.hasAppleAccess = true
            do {
                let messages = try await client.getMessageList().messageIdentifiers ?? []
                let images = try await client.getImageList().imageIdentifiers ?? []
                model.messages = messages.map { item in
                    let id = item.messageIdentifier ?? ""
                    return .init(
                        id: id, state: item.messageState?.rawValue ?? "–", size: "",
                        deleteAction: "\(base)/messages/\(Self.pathComponent(id))/delete")
                }
                model.images = images.map {
                    .init(id: $0.imageIdentifier ?? "", state: $0.imageState?.rawValue ?? "–", size: $0.imageSize?.rawValue ?? "–", deleteAction: "")
                }
            } catch {
                model.error = "Apple's lists could not be read: \(String(describing: error).prefix(500))"
            }
        }
        return templates.page(
            "retention-messages", title: "Retention messages", frame: frame(visitor, app: app, section: "retention-messages"), status: status,
            page: model)
    }

    /// The latest default per product and locale set or removed through the dashboard.
    private func recordedDefaults(app: AppRuntime) async throws -> [RetentionMessagesModel.Default] {
        let days = DayFormat(timeZone: app.configuration.analytics.timeZone)
        var seen: Set<String> = []
        var rows: [RetentionMessagesModel.Default] = []
        let actions = [AuditAction.setDefaultRetentionMessage.rawValue, AuditAction.deleteDefaultRetentionMessage.rawValue]
        for entry in try await store.auditEntries(appId: app.id, limit: 1000) where actions.contains(entry.action) {
            guard let product = entry.details["productId"], let locale = entry.details["locale"] else { continue }
            guard seen.insert("\(product)\n\(locale)").inserted else { continue }
            if entry.action == AuditAction.setDefaultRetentionMessage.rawValue {
                rows.append(
                    .init(
                        productId: product, locale: locale, messageIdentifier: entry.details["messageIdentifier"] ?? "", actor: entry.actor,
                        at: days.instant(entry.at)))
            }
        }
        return rows.sorted { ($0.productId, $0.locale) < ($1.productId, $1.locale) }
    }

    package func uploadRetentionMessageForm(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try adminApp(context)
        let form = try await Self.checkedForm(request, context, api: api)
        guard let header = form.text("header"), let body = form.text("body") else {
            throw DashboardError.badRequest("A message needs a header and a body.")
        }
        var image: UploadMessageImage?
        if let imageId = form.text("imageIdentifier") {
            guard let uuid = UUID(uuidString: imageId), let altText = form.text("altText") else {
                throw DashboardError.badRequest("An image needs its identifier (a UUID) and an alternative text.")
            }
            image = UploadMessageImage(imageIdentifier: uuid.uuidString.lowercased(), altText: altText)
        }
        let position = form.text("headerPosition").map { HeaderPosition(rawValue: $0) }
        let identifier = UUID()
        let message = UploadMessageRequestBody(header: header, body: body, image: image, headerPosition: position)
        let id = identifier.uuidString.lowercased()
        return try await change(
            app: app, visitor: visitor, client: api.appleClients.client(for: app.id), done: "uploaded message \(id)", action: .uploadRetentionMessage,
            details: ["messageIdentifier": id, "header": header, "imageIdentifier": image?.imageIdentifier ?? ""]
        ) { client in
            try await client.uploadMessage(messageIdentifier: identifier, body: message)
        }
    }

    package func deleteRetentionMessageForm(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try adminApp(context)
        _ = try await Self.checkedForm(request, context, api: api)
        guard let identifier = UUID(uuidString: try context.pathParameter("messageId")) else { throw DashboardError.notFound }
        let id = identifier.uuidString.lowercased()
        return try await change(
            app: app, visitor: visitor, client: api.appleClients.client(for: app.id), done: "deleted message \(id)", action: .deleteRetentionMessage,
            details: ["messageIdentifier": id]
        ) { client in
            try await client.deleteMessage(messageIdentifier: identifier)
        }
    }

    package func setDefaultRetentionMessageForm(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try adminApp(context)
        let form = try await Self.checkedForm(request, context, api: api)
        guard let product = form.text("productId"), let locale = form.text("locale"),
            let message = form.text("messageIdentifier").flatMap(UUID.init(uuidString:))
        else { throw DashboardError.badRequest("Give the product, the locale and the message.") }
        let id = message.uuidString.lowercased()
        return try await change(
            app: app, visitor: visitor, client: api.appleClients.client(for: app.id), done: "\(id) is the default of \(product) in \(locale)",
            action: .setDefaultRetentionMessage,
            details: ["productId": product, "locale": locale, "messageIdentifier": id]
        ) { client in
            try await client.configureDefaultMessage(productId: product, locale: locale, request: DefaultConfigurationRequest(messageIdentifier: id))
        }
    }

    package func deleteDefaultRetentionMessageForm(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (visitor, app) = try adminApp(context)
        let form = try await Self.checkedForm(request, context, api: api)
        guard let product = form.text("productId"), let locale = form.text("locale") else {
            throw DashboardError.badRequest("Give the product and the locale.")
        }
        return try await change(
            app: app, visitor: visitor, client: api.appleClients.client(for: app.id), done: "removed the default of \(product) in \(locale)",
            action: .deleteDefaultRetentionMessage,
            details: ["productId": product, "locale": locale]
        ) { client in
            try await client.deleteDefaultMessage(productId: product, locale: locale)
        }
    }

    /// Sends one change to Apple; on success audits it and redirects to the page, on Apple's
    /// refusal shows the page again with the reason (422), changing nothing here.
    private func change<Client>(
        app: AppRuntime, visitor: DashboardVisitor, client: Client?, done: String, action: AuditAction, details: [String: String],
        _ call: (Client) async throws -> Void
    ) async throws -> Response {
        guard let client else {
            throw DashboardError(status: .conflict, message: "The app has no App Store Server API credentials (appStoreServerAPI) configured.")
        }
        do {
            try await call(client)
        } catch {
            return try await retentionMessagesPage(
                visitor: visitor, app: app, notice: nil, error: Self.appleFailure(error), status: .unprocessableContent)
        }
        try await api.audit(action, app: app, actor: visitor.actor, details: details, at: clock())
        return Self.redirect(to: "/dashboard/apps/\(Self.pathComponent(app.id))/retention-messages?done=\(Self.queryComponent(done))")
    }

    /// Apple's refusal as one line (the client's description names the HTTP status and Apple's
    /// error code).
    private static func appleFailure(_ error: any Error) -> String {
        "Apple refused the change: \(String(describing: error).prefix(500))"
    }
}
