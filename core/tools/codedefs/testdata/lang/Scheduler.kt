package com.example.scheduling

import java.time.Duration
import java.time.Instant

interface Clock {
    fun now(): Instant
}

data class Job(val name: String, val every: Duration, var lastRun: Instant? = null)

enum class RunResult { OK, SKIPPED, FAILED }

class Scheduler(private val clock: Clock) {
    private val jobs = mutableListOf<Job>()

    fun register(job: Job) {
        jobs += job
    }

    fun due(): List<Job> = jobs.filter { job ->
        val last = job.lastRun ?: return@filter true
        Duration.between(last, clock.now()) >= job.every
    }

    suspend fun runDue(action: suspend (Job) -> Unit): Map<String, RunResult> {
        val results = mutableMapOf<String, RunResult>()
        for (job in due()) {
            results[job.name] = try {
                action(job)
                job.lastRun = clock.now()
                RunResult.OK
            } catch (e: Exception) {
                RunResult.FAILED
            }
        }
        return results
    }

    companion object {
        fun withSystemClock() = Scheduler(object : Clock {
            override fun now(): Instant = Instant.now()
        })
    }
}

object Defaults {
    val interval: Duration = Duration.ofMinutes(5)
}

typealias JobMap = Map<String, Job>

fun formatJob(job: Job): String = "${job.name} every ${job.every}"
