/// What the notification URL hands the rest of the server, in this process: the bodies it
/// verified (``VerifiedAtDoor``, so the inbox does not verify them again) and its counts of
/// admitted and refused bodies (``IntakeCounters``, which the intake's health check reads).
/// The composition (``buildServer(configuration:dependencies:)``) makes one and gives the same
/// to the route, the inbox processor and the job runner.
public struct NotificationDoor: Sendable {
    package let verified = VerifiedAtDoor()
    package let counters = IntakeCounters()

    public init() {}
}
