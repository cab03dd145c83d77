import Foundation
import Testing

@testable import AppStoreServerAPI

@Suite("The sliding-window token bucket")
struct SlidingWindowBucketTests {
    static let start = Date(timeIntervalSince1970: 1_000)

    @Test("grants immediately while tokens remain, then when the oldest one returns")
    func grants() {
        var bucket = SlidingWindowBucket(limit: RateLimit(requests: 2, per: .seconds(1)))
        #expect(bucket.reserve(now: Self.start) == Self.start)
        #expect(bucket.reserve(now: Self.start.addingTimeInterval(0.4)) == Self.start.addingTimeInterval(0.4))
        #expect(bucket.reserve(now: Self.start.addingTimeInterval(0.5)) == Self.start.addingTimeInterval(1))
        #expect(bucket.reserve(now: Self.start.addingTimeInterval(0.5)) == Self.start.addingTimeInterval(1.4))
        #expect(bucket.reserve(now: Self.start.addingTimeInterval(10)) == Self.start.addingTimeInterval(10))
        #expect(bucket.slots.count == 2)
    }

    @Test("a pause holds every slot until it ends")
    func pause() {
        var bucket = SlidingWindowBucket(limit: RateLimit(requests: 5, per: .seconds(1)))
        bucket.pause(until: Self.start.addingTimeInterval(3))
        #expect(bucket.reserve(now: Self.start) == Self.start.addingTimeInterval(3))
        bucket.pause(until: Self.start.addingTimeInterval(2))
        #expect(bucket.reserve(now: Self.start) == Self.start.addingTimeInterval(3))
    }

    @Test("slots never go backwards even if the clock does")
    func monotonic() {
        var bucket = SlidingWindowBucket(limit: RateLimit(requests: 3, per: .seconds(1)))
        let a = bucket.reserve(now: Self.start.addingTimeInterval(5))
        let b = bucket.reserve(now: Self.start)
        #expect(b >= a)
    }

    @Test("fractional rates become one request per longer window")
    func fractional() {
        #expect(RateLimit(perSecond: 0.1) == RateLimit(requests: 1, per: .seconds(10)))
        #expect(RateLimit(perSecond: 2.5) == RateLimit(requests: 2, per: .seconds(1)))
        #expect(RateLimit(requests: 20, per: .seconds(1)).scaled(by: 0.1) == RateLimit(requests: 2, per: .seconds(1)))
    }
}
