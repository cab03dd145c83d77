import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperStore

extension StorekeeperAPI {
    /// The prefix of the ids RevenueCat's SDK makes up for a customer who has not logged in.
    package static let revenueCatAnonymousPrefix = "$RCAnonymousID:"

    /// `POST v1/subscribers/identify` (`Purchases.logIn`), `{app_user_id, new_app_user_id}`:
    /// the new id's CustomerInfo, 201 when the new id was not known (it is created), 200 when it
    /// was. As RevenueCat does, an anonymous customer (`$RCAnonymousID:…`) Storekeeper knows
    /// keeps its id and its purchases, and the new id becomes its `appUserId` alias; a known
    /// new id is answered as it is (nothing merges), and an identified old id is not linked to
    /// a new one.
    package func revenueCatLogIn(_ request: Request, _ context: RevenueCatSDKContext) async throws -> Response {
        let app = try context.sdkApp()
        let object = try await revenueCatBody(request)
        let (oldId, newId) = (try Self.appUserId(object, "app_user_id"), try Self.appUserId(object, "new_app_user_id"))
        let new = try await revenueCatCustomer(app: app, appUserId: newId)
        if new.known { return try await revenueCatCustomerInfo(app: app, customerId: new.id).response() }
        let old = try await revenueCatCustomer(app: app, appUserId: oldId)
        let customer = old.known && oldId.hasPrefix(Self.revenueCatAnonymousPrefix) ? old.id : newId
        return try await revenueCatLink(newId, to: customer, app: app, created: .created)
    }

    /// `POST v1/subscribers/{appUserId}/alias` (the SDK's older `createAlias`),
    /// `{new_app_user_id}`: links the new id to the path's customer (created if new) as its
    /// `appUserId` alias and answers its CustomerInfo. Two customers Storekeeper already knows
    /// are never merged (7255).
    package func revenueCatAlias(_ request: Request, _ context: RevenueCatSDKContext) async throws -> Response {
        let app = try context.sdkApp()
        let object = try await revenueCatBody(request)
        let customer = try await revenueCatCustomer(app: app, appUserId: try context.appUserId())
        let newId = try Self.appUserId(object, "new_app_user_id")
        let new = try await revenueCatCustomer(app: app, appUserId: newId)
        if new.known {
            guard CustomerId.same(new.id, customer.id) else {
                throw RevenueCatSDKError(
                    .conflict, code: .couldNotCreateAlias, message: "both app user ids are customers already; they are not merged")
            }
            return try await revenueCatCustomerInfo(app: app, customerId: customer.id).response()
        }
        return try await revenueCatLink(newId, to: customer.id, app: app, created: .ok)
    }

    /// Links `appUserId` to `customer` (the customer itself when they are the same id), then
    /// answers the customer's CustomerInfo with `created`. A link another request made first
    /// is answered as that one's customer.
    private func revenueCatLink(_ appUserId: String, to customer: String, app: AppRuntime, created: HTTPResponse.Status) async throws -> Response {
        let aliases = CustomerId.same(appUserId, customer) ? [] : [CustomerAlias(kind: .appUserId, value: appUserId)]
        do {
            try await store.apply(Changeset(appId: app.id, at: clock(), links: [CustomerLink(customerId: customer, aliases: aliases)]))
        } catch let error as StoreError where error.code == .aliasConflict {
            let now = try await revenueCatCustomer(app: app, appUserId: appUserId)
            guard now.known else { throw RevenueCatSDKError(.conflict, code: .couldNotCreateAlias, message: "the app user id could not be linked") }
            return try await revenueCatCustomerInfo(app: app, customerId: now.id).response()
        }
        return try await revenueCatCustomerInfo(app: app, customerId: customer).response(status: created)
    }

    /// `POST v1/subscribers/{appUserId}/attributes`, `{"attributes": {key: {value, updated_at_ms}}}`:
    /// stores the customer's attributes (a `null` value removes one; an update older than the
    /// stored one is ignored). Valid ones are kept; refused ones are named in
    /// `attribute_errors` with 7263 (400).
    package func revenueCatAttributes(_ request: Request, _ context: RevenueCatSDKContext) async throws -> Response {
        let app = try context.sdkApp()
        let object = try await revenueCatBody(request)
        let customer = try await revenueCatCustomer(app: app, appUserId: try context.appUserId())
        guard let attributes = object["attributes"] as? [String: Any] else {
            throw RevenueCatSDKError(.badRequest, code: .invalidSubscriberAttributesBody, message: "attributes must be an object")
        }
        try await storeRevenueCatAttributes(attributes, app: app, customerId: customer.id)
        return JSONBody.response(json: ByteBuffer(string: "{}"))
    }

    /// Validates and stores RevenueCat subscriber attributes for the customer; throws 7263
    /// naming the refused ones after storing the others.
    package func storeRevenueCatAttributes(_ attributes: [String: Any], app: AppRuntime, customerId: String) async throws {
        let now = clock()
        guard attributes.count <= CustomerAttribute.maximumPerCustomer else {
            throw RevenueCatSDKError(
                .badRequest, code: .invalidSubscriberAttributesBody,
                message: "at most \(CustomerAttribute.maximumPerCustomer) attributes may be sent at once")
        }
        var accepted: [CustomerAttribute] = []
        var refused: [(key: String, message: String)] = []
        for (key, entry) in attributes.sorted(by: { $0.key < $1.key }) {
            guard (1...CustomerAttribute.maximumKeyBytes).contains(key.utf8.count),
                !key.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) })
            else {
                refused.append((String(key.prefix(64)), "the key must be 1 to \(CustomerAttribute.maximumKeyBytes) bytes without control characters"))
                continue
            }
            guard let entry = entry as? [String: Any] else {
                refused.append((key, "the attribute must be an object {value, updated_at_ms}"))
                continue
            }
            let value: String?
            switch entry["value"] {
            case nil, is NSNull: value = nil
            case let text as String where text.utf8.count <= CustomerAttribute.maximumValueBytes: value = text
            case is String:
                refused.append((key, "the value must be at most \(CustomerAttribute.maximumValueBytes) bytes"))
                continue
            default:
                refused.append((key, "the value must be a string or null"))
                continue
            }
            var updatedAt = now
            if let milliseconds = (entry["updated_at_ms"] as? NSNumber)?.doubleValue, milliseconds.isFinite, milliseconds >= 0 {
                // The client's clock; never later than ours, so no write can shadow later ones.
                updatedAt = min(Date(timeIntervalSince1970: milliseconds / 1000), now)
            }
            accepted.append(CustomerAttribute(key: key, value: value, updatedAt: updatedAt))
        }
        if !accepted.isEmpty {
            do {
                try await store.setCustomerAttributes(appId: app.id, customerId: customerId, accepted, at: now)
            } catch let error as StoreError where error.code == .limitReached {
                var failure = RevenueCatSDKError(
                    .badRequest, code: .invalidSubscriberAttributes,
                    message: "a customer keeps at most \(CustomerAttribute.maximumPerCustomer) attributes")
                failure.attributeErrors = accepted.map { ($0.key, failure.message) } + refused
                throw failure
            }
        }
        guard refused.isEmpty else {
            var failure = RevenueCatSDKError(.badRequest, code: .invalidSubscriberAttributes, message: "some subscriber attributes were refused")
            failure.attributeErrors = refused
            throw failure
        }
    }
}
