import AppStoreModels
import Foundation
import Synchronization

/// What the notification route verified, handed to this process's inbox processor so that it
/// does not check the notification's own signature a second time moments later: the decoded
/// notification by the inbox id its row was given, with the app and the JWS's signature part.
///
/// An id names one row for good (neither SQLite's AUTOINCREMENT nor PostgreSQL's sequence reuses
/// one), and only this process's route fills this, from the verdict on the very JWS it stored;
/// the processor still checks that the row's app and the JWS's signature are the ones handed over,
/// and verifies the nested signed data (transaction, renewal info) itself. Rows stored by another
/// process, or processed after a restart, or pushed out by newer ones, are verified in full.
package final class VerifiedAtDoor: Sendable {
    package struct Entry: Sendable {
        package var appId: String
        /// The third part of the JWS: what the signature check covered, in a few dozen bytes
        /// (a copy: a slice would keep the whole 15 KB JWS alive).
        package var signature: String
        package var notification: ResponseBodyV2DecodedPayload
        /// About what the entry holds in memory: its nested signed data, and a kilobyte for the
        /// rest.
        package var bytes: Int
    }

    /// The most entries kept, and the most bytes they may hold together (an entry holds a
    /// decoded notification with its nested JWS, 8 KB or so). A burst is stored whole before it
    /// is processed (the door goes first), so the entries last as long as a burst of a few
    /// thousand notifications; what is pushed out is verified in full.
    package let capacity: Int
    package let byteBudget: Int
    /// The entries, their ids oldest first (ids already taken are dropped from it lazily), and
    /// the bytes they hold.
    private let state = Mutex<(entries: [Int64: Entry], order: [Int64], bytes: Int)>(([:], [], 0))

    package init(capacity: Int = 8192, byteBudget: Int = 32 << 20) {
        self.capacity = max(1, capacity)
        self.byteBudget = max(1, byteBudget)
    }

    /// Keeps `notification`, verified for `appId` from `signedPayload`, for the row `id`.
    package func keep(id: Int64, appId: String, signedPayload: String, notification: ResponseBodyV2DecodedPayload) {
        let nested = (notification.data?.signedTransactionInfo?.utf8.count ?? 0) + (notification.data?.signedRenewalInfo?.utf8.count ?? 0)
        let entry = Entry(appId: appId, signature: String(Self.signature(of: signedPayload)), notification: notification, bytes: nested + 1024)
        state.withLock { state in
            if let replaced = state.entries.updateValue(entry, forKey: id) { state.bytes -= replaced.bytes }
            state.bytes += entry.bytes
            state.order.append(id)
            if state.order.count > 2 * capacity { state.order.removeAll { state.entries[$0] == nil } }
            while state.entries.count > capacity || state.bytes > byteBudget, !state.order.isEmpty {
                if let evicted = state.entries.removeValue(forKey: state.order.removeFirst()) { state.bytes -= evicted.bytes }
            }
        }
    }

    /// The notification kept for row `id` of `appId` holding `signedPayload`, removed; `nil` when
    /// none was kept (or it was for another app or JWS).
    package func take(id: Int64, appId: String, signedPayload: String) -> ResponseBodyV2DecodedPayload? {
        let taken = state.withLock { state -> Entry? in
            guard let entry = state.entries.removeValue(forKey: id) else { return nil }
            state.bytes -= entry.bytes
            return entry
        }
        guard let entry = taken else { return nil }
        guard entry.appId == appId, entry.signature == Self.signature(of: signedPayload) else { return nil }
        return entry.notification
    }

    package var count: Int { state.withLock { $0.entries.count } }
    /// The bytes the entries hold, by the estimate above.
    package var bytes: Int { state.withLock { $0.bytes } }
    /// The ids remembered in order (at most twice the capacity).
    package var orderCount: Int { state.withLock { $0.order.count } }

    package static func signature(of jws: String) -> Substring {
        jws.lastIndex(of: ".").map { jws[jws.index(after: $0)...] } ?? Substring(jws)
    }
}
