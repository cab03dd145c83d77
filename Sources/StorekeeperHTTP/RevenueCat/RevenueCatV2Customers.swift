import Foundation
import StorekeeperApps
import StorekeeperStore
import SubscriptionEngine

/// The customers of a RevenueCat project as v2 shows them, computed like every Storekeeper read:
/// the engine's answer over the ledger at the request's instant.
///
/// A v2 customer is project-wide (RevenueCat's customer spans the project's apps). Storekeeper
/// keeps customers per app, with the app's user id as the customer id; the v2 customer `id` is
/// that user id, and its state is the union over the project's apps of the customer with that
/// id (else the owner of that id as an `appUserId` alias). Customers are listed in the byte
/// order of their ids, each id once however many apps know it.
package struct RevenueCatV2Customers: Sendable {
    package let project: RevenueCatV2Project
    package let store: any StorekeeperStorage
    package let now: Date

    package init(project: RevenueCatV2Project, store: any StorekeeperStorage, now: Date) {
        self.project = project
        self.store = store
        self.now = now
    }

    /// The customer of one app behind a v2 customer.
    package struct Member: Sendable {
        package var app: AppRuntime
        package var customerId: String
    }

    /// One member's facts and the engine's state of them now.
    package struct Loaded: Sendable {
        package var member: Member
        package var entries: [LedgerEntry]
        package var history: PurchaseHistory
        package var state: CustomerState
    }

    /// The apps' customers a v2 customer id names; 404 (`resource_missing`) when none.
    package func members(of id: String) async throws -> [Member] {
        var members: [Member] = []
        for app in project.apps {
            if try await store.customerExists(appId: app.id, customerId: id) {
                members.append(Member(app: app, customerId: id))
            } else if let owner = try await store.customer(appId: app.id, alias: CustomerAlias(kind: .appUserId, value: id)) {
                members.append(Member(app: app, customerId: owner))
            }
        }
        guard !members.isEmpty else { throw RevenueCatV2Error.missing("customer", param: "customer_id") }
        return members
    }

    /// The v2 customer a path's id names: its canonical id (the id itself when an app has a
    /// customer of that id, else the customer that holds it as an `appUserId` alias) and its
    /// members; 404 (`resource_missing`) when no app knows it.
    package func resolve(_ id: String) async throws -> (id: String, members: [Member]) {
        let members = try await members(of: id)
        let canonical = members.contains { $0.customerId == id } ? id : members[0].customerId
        return (canonical, members)
    }

    package func load(_ member: Member) async throws -> Loaded {
        let entries = try await store.ledger(appId: member.app.id, customerId: member.customerId)
        let history = PurchaseHistory(ledger: entries)
        return Loaded(
            member: member, entries: entries, history: history, state: CustomerState(history: history, catalog: member.app.catalog, at: now))
    }

    package func load(_ members: [Member]) async throws -> [Loaded] {
        var loaded: [Loaded] = []
        for member in members { loaded.append(try await load(member)) }
        return loaded
    }

    // MARK: - Customers

    /// A page of the project's customers: each app's next `limit` ids after the cursor (a keyset
    /// page each, one more to tell whether more follow), merged in byte order, each id once.
    /// The first `limit` of the merged ids are the project's next ones: every app gave at least
    /// `limit` ids or all it has.
    package func page(_ page: RevenueCatV2Page) async throws -> RevenueCatV2.List<RevenueCatV2.Customer> {
        // The store answers at most 1,000 ids: at the largest limit, a full page means more may follow.
        let asked = min(page.limit + 1, RevenueCatV2Page.maximumLimit)
        var apps: [String: [AppRuntime]] = [:]
        var full = false
        for app in project.apps {
            let found = try await store.customerPage(appId: app.id, after: page.startingAfter, limit: asked)
            full = full || found.count >= asked
            for id in found { apps[id, default: []].append(app) }
        }
        let ordered = apps.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let shown = Array(ordered.prefix(page.limit))
        let more = ordered.count > shown.count || full
        var items: [RevenueCatV2.Customer] = []
        for id in shown {
            let members = (apps[id] ?? []).map { Member(app: $0, customerId: id) }
            items.append(try await customer(id: id, members: members, attributes: false))
        }
        let path = project.path("customers")
        return RevenueCatV2.List(items: items, nextPage: more ? page.nextPage(path: path, after: shown.last) : nil, url: path)
    }

    /// The v2 customer `id` made of `members`.
    package func customer(id: String, members: [Member], attributes expand: Bool) async throws -> RevenueCatV2.Customer {
        let loaded = try await load(members)
        var firstSeen = loaded.flatMap(\.entries).map(\.recordedAt).min()
        var attributes: [RevenueCatV2.Attribute]?
        if expand || firstSeen == nil {
            let found = try await self.attributes(of: members)
            firstSeen = firstSeen ?? found.map(\.updatedAt).min()
            if expand { attributes = found.map(Self.attribute) }
        }
        let seen = firstSeen.map(RevenueCatV2.ms) ?? members.map { project.recordedAt($0.app) }.min() ?? 0
        let idPath = "customers/" + RevenueCatV2Page.pathEscaped(id)
        return RevenueCatV2.Customer(
            id: id, projectId: project.id, firstSeenAt: seen, lastSeenAt: nil,
            activeEntitlements: RevenueCatV2.List(items: activeEntitlements(loaded), url: project.path(idPath + "/active_entitlements")),
            attributes: attributes.map { RevenueCatV2.List(items: $0, url: project.path(idPath + "/attributes")) })
    }

    /// What the engine grants now, each entitlement once: the latest end (none for one that
    /// does not end), in identifier order.
    package func activeEntitlements(_ loaded: [Loaded]) -> [RevenueCatV2.ActiveEntitlement] {
        var ends: [String: Date?] = [:]
        for entitlement in loaded.flatMap(\.state.entitlements) {
            switch (ends[entitlement.identifier], entitlement.expiresDate) {
            case (nil, let end): ends[entitlement.identifier] = .some(end)
            case (.some(.some(let known)), .some(let end)): ends[entitlement.identifier] = .some(max(known, end))
            default: ends[entitlement.identifier] = .some(nil)
            }
        }
        return ends.keys.sorted().map { identifier in
            RevenueCatV2.ActiveEntitlement(
                entitlementId: RevenueCatV2Project.entitlementId(identifier), expiresAt: (ends[identifier] ?? nil).map(RevenueCatV2.ms))
        }
    }

    /// The members' attributes, set ones only, in key order (the first app's value of a key
    /// several apps keep, apps in id order).
    package func attributes(of members: [Member]) async throws -> [CustomerAttribute] {
        var byKey: [String: CustomerAttribute] = [:]
        for member in members {
            for attribute in try await store.customerAttributes(appId: member.app.id, customerId: member.customerId)
            where attribute.value != nil && byKey[attribute.key] == nil {
                byKey[attribute.key] = attribute
            }
        }
        return byKey.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.compactMap { byKey[$0] }
    }

    package static func attribute(_ attribute: CustomerAttribute) -> RevenueCatV2.Attribute {
        RevenueCatV2.Attribute(name: attribute.key, value: attribute.value, updatedAt: RevenueCatV2.ms(attribute.updatedAt))
    }

    /// The v2 aliases of the customer: its id in each app and the `appUserId` aliases (never
    /// Apple's ids or app account tokens), each once.
    package func aliases(id: String, members: [Member]) async throws -> [RevenueCatV2.Alias] {
        var seen = Set<String>()
        var aliases: [RevenueCatV2.Alias] = []
        for member in members {
            let entries = try await store.ledger(appId: member.app.id, customerId: member.customerId)
            let created = entries.map(\.recordedAt).min().map(RevenueCatV2.ms) ?? project.recordedAt(member.app)
            let names =
                [member.customerId]
                + (try await store.aliases(appId: member.app.id, customerId: member.customerId)).filter { $0.kind == .appUserId }.map(\.value)
            for name in names where seen.insert(name).inserted {
                aliases.append(RevenueCatV2.Alias(id: name, createdAt: created))
            }
        }
        return aliases
    }
}
