import AppStoreModels
import AppStoreServerAPI
import AppStoreServerAPITesting
import Foundation
import StorekeeperApps
import StorekeeperJobs
import StorekeeperStore
import Synchronization
import Testing

@Suite("Dashboard: retention messages")
struct DashboardRetentionMessagingTests {
    /// Apple's Retention Messaging content for one app, kept by the fake's handlers: messages
    /// are listed `APPROVED`; a header over 66 characters is refused as Apple refuses it.
    final class Content: Sendable {
        let messages = Mutex<[(UUID, UploadMessageRequestBody)]>([])
        let defaults = Mutex<[String: String]>([:])

        var apple: AppStoreServerAPIFake {
            var fake = AppStoreServerAPIFake()
            fake.uploadMessageHandler = { id, body in
                guard body.header.count <= 66 else {
                    throw AppStoreServerAPIError(
                        .apiError, "Invalid request. The header is too long.", httpStatus: 400, apiErrorCode: .headerTooLong)
                }
                self.messages.withLock { $0.append((id, body)) }
            }
            fake.getMessageListHandler = {
                GetMessageListResponse(
                    messageIdentifiers: self.messages.withLock {
                        $0.map { .init(messageIdentifier: $0.0.uuidString.lowercased(), messageState: .approved) }
                    })
            }
            fake.deleteMessageHandler = { id in self.messages.withLock { $0.removeAll { $0.0 == id } } }
            fake.getImageListHandler = {
                GetImageListResponse(imageIdentifiers: [
                    .init(imageIdentifier: "7c4c8c1e-0000-4000-8000-000000000001", imageState: .pending, imageSize: .fullSize)
                ])
            }
            fake.configureDefaultMessageHandler = { product, locale, request in
                self.defaults.withLock { $0["\(product)/\(locale)"] = request.messageIdentifier }
            }
            fake.deleteDefaultMessageHandler = { product, locale in _ = self.defaults.withLock { $0.removeValue(forKey: "\(product)/\(locale)") } }
            return fake
        }
    }

    @Test("an admin uploads a message through the form, sees it listed, sets and removes a default; each change audited; Apple's refusal shown")
    func uploadAndDefault() async throws {
        let content = Content()
        let apple = AppleClients(["alpha": content.apple])
        func clients(_: ServerConfiguration) -> AppleClients { apple }
        try await ServerHarness.run(.memory, appleClients: clients) { harness, client in
            try await DashboardTests.addUser(harness, "owner@example.com", .admin)
            try await DashboardTests.addUser(harness, "helper@example.com", .support)
            let browser = DashboardBrowser(client)
            try await browser.signIn("owner@example.com", DashboardTests.password)
            let empty = try await browser.get("/dashboard/apps/alpha/retention-messages")
            #expect(empty.status == 200 && empty.text.contains("No messages.") && empty.text.contains("No default message set here yet."))
            #expect(empty.text.contains("7c4c8c1e-0000-4000-8000-000000000001") && empty.text.contains("PENDING"))
            #expect(empty.text.contains(#"href="/dashboard/apps/alpha/retention-messages""#))
            let token = try #require(empty.csrf)

            let uploaded = try await browser.post(
                "/dashboard/apps/alpha/retention-messages/messages",
                [
                    "csrf": token, "header": "Stay with us", "body": "Three months at half price", "imageIdentifier": "",
                    "headerPosition": "ABOVE_BODY",
                ])
            #expect(uploaded.status == 303, "\(uploaded.text)")
            let (id, body) = try #require(content.messages.withLock { $0.first })
            #expect(body == UploadMessageRequestBody(header: "Stay with us", body: "Three months at half price", headerPosition: .aboveBody))
            let message = id.uuidString.lowercased()
            let listed = try await browser.get(try #require(uploaded.location))
            #expect(listed.text.contains("Done: uploaded message \(message)."))
            #expect(listed.text.contains("<code>\(message)</code></td><td>APPROVED</td>"))

            let refused = try await browser.post(
                "/dashboard/apps/alpha/retention-messages/messages", ["csrf": token, "header": String(repeating: "h", count: 67), "body": "b"])
            #expect(refused.status == 422 && refused.text.contains("4000162") && refused.text.contains("The header is too long."))
            #expect(content.messages.withLock { $0.count } == 1)

            let set = try await browser.post(
                "/dashboard/apps/alpha/retention-messages/defaults",
                ["csrf": token, "productId": "pro.monthly", "locale": "en-US", "messageIdentifier": message])
            #expect(set.status == 303)
            #expect(content.defaults.withLock { $0 } == ["pro.monthly/en-US": message])
            let withDefault = try await browser.get("/dashboard/apps/alpha/retention-messages")
            #expect(withDefault.text.contains("<td>pro.monthly</td><td>en-US</td><td><code>\(message)</code></td>"))
            let removed = try await browser.post(
                "/dashboard/apps/alpha/retention-messages/defaults/delete", ["csrf": token, "productId": "pro.monthly", "locale": "en-US"])
            #expect(removed.status == 303 && content.defaults.withLock { $0.isEmpty })
            #expect(try await browser.get("/dashboard/apps/alpha/retention-messages").text.contains("No default message set here yet."))
            let deleted = try await browser.post("/dashboard/apps/alpha/retention-messages/messages/\(message)/delete", ["csrf": token])
            #expect(deleted.status == 303 && content.messages.withLock { $0.isEmpty })

            let audit = try await harness.store.auditEntries(appId: "alpha", limit: 10)
            #expect(
                audit.map(\.action) == ["retention.message.delete", "retention.default.delete", "retention.default.set", "retention.message.upload"])
            #expect(audit.allSatisfy { $0.actor == "dashboard:owner@example.com" })
            #expect(audit.last?.details["messageIdentifier"] == message)

            // Forms without the session's token are refused; other roles may not open the page.
            #expect(try await browser.post("/dashboard/apps/alpha/retention-messages/messages", ["header": "h", "body": "b"]).status == 403)
            let support = DashboardBrowser(client)
            try await support.signIn("helper@example.com", DashboardTests.password)
            #expect(try await support.get("/dashboard/apps/alpha/retention-messages").status == 403)
            #expect(
                try await support.post("/dashboard/apps/alpha/retention-messages/messages", ["csrf": token, "header": "h", "body": "b"]).status == 403
            )
        }
    }

    @Test("an app without App Store Server API credentials says so")
    func withoutCredentials() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            try await DashboardTests.addUser(harness, "owner@example.com", .admin)
            let browser = DashboardBrowser(client)
            try await browser.signIn("owner@example.com", DashboardTests.password)
            let page = try await browser.get("/dashboard/apps/alpha/retention-messages")
            #expect(page.status == 200 && page.text.contains("This app has no App Store Server API credentials"))
            let token = try #require(page.csrf)
            let upload = try await browser.post("/dashboard/apps/alpha/retention-messages/messages", ["csrf": token, "header": "h", "body": "b"])
            #expect(upload.status == 409)
        }
    }
}
