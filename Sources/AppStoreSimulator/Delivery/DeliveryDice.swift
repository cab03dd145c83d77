import Foundation

/// The random choices of notification delivery, each drawn from its own generator derived
/// from the seed and a label naming the notification, channel and question.
///
/// Because every choice has its own label, the answer for one notification does not depend
/// on how many others were sent before it, on the order they completed in, or on timing.
struct DeliveryDice: Sendable {
    let seed: UInt64
    let configuration: DeliveryConfiguration

    init(configuration: DeliveryConfiguration) {
        self.seed = configuration.seed
        self.configuration = configuration
    }

    private func generator(_ uuid: String, _ channel: DeliveryChannel, _ question: String) -> SeededRandom {
        SeededRandom.derived(seed: seed, "delivery/\(channel.rawValue)/\(uuid)/\(question)")
    }

    /// Whether every attempt of this notification on this channel is lost.
    func isDropped(_ uuid: String, _ channel: DeliveryChannel) -> Bool {
        var random = generator(uuid, channel, "drop")
        return random.chance(configuration.dropRate)
    }

    /// Whether attempt number `attempt` (0 for the first) is lost on the way.
    func isAttemptLost(_ uuid: String, _ channel: DeliveryChannel, attempt: Int) -> Bool {
        var random = generator(uuid, channel, "loss/\(attempt)")
        return random.chance(configuration.attemptLossRate)
    }

    /// Whether a delivered notification is delivered a second time.
    func isDuplicated(_ uuid: String, _ channel: DeliveryChannel) -> Bool {
        var random = generator(uuid, channel, "duplicate")
        return random.chance(configuration.duplicateRate)
    }

    /// The wait before the first attempt, from 0 to the configured maximum delay.
    func firstAttemptDelay(_ uuid: String, _ channel: DeliveryChannel) -> TimeInterval {
        let maximum = configuration.maximumDelay
        guard maximum.isFinite, maximum > 0 else { return 0 }
        var random = generator(uuid, channel, "delay")
        return Double.random(in: 0...maximum, using: &random)
    }

    /// The wait between a delivery and its duplicate, from 1 s to the configured maximum.
    func duplicateDelay(_ uuid: String, _ channel: DeliveryChannel) -> TimeInterval {
        let maximum = configuration.maximumDuplicateDelay
        guard maximum.isFinite, maximum > 1 else { return 1 }
        var random = generator(uuid, channel, "duplicate-delay")
        return Double.random(in: 1...maximum, using: &random)
    }

    /// A generator for shuffling the `round`-th batch of due posts.
    func reorderGenerator(round: Int) -> SeededRandom {
        SeededRandom.derived(seed: seed, "delivery/reorder/\(round)")
    }
}
