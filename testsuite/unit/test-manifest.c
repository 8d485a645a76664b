/* test-manifest.c: manifest.json <-> struct hwtr_recording_info (manifest.c).
 *
 * Oracle: hand-written manifests in the format of doc/recording-format.md
 * (DESIGN.md section 4) with the fields a reader must get from them; broken
 * ones must be refused with the exact message, which names the file and the
 * field (the manifest is one JSON object: no line numbers).
 */
#include "manifest.h"
#include "check-main.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define FILE_NAME "rec.hwtrec/manifest.json"

static json_t *doc;
static struct hwtr_recording_info info;

static void release(void)
{
	manifest_release(&info);
	json_decref(doc);
	doc = NULL;
}

static int decode(const char *text)
{
	json_error_t jerr;

	release();
	doc = json_loads(text, 0, &jerr);
	ck_assert_msg(doc != NULL, "test manifest does not parse: %s (%s)",
		      jerr.text, text);
	return manifest_decode(doc, FILE_NAME, &info);
}

static void refused(const char *text, int code, const char *message)
{
	ck_assert_int_eq(decode(text), -code);
	ck_assert_str_eq(hwtr_last_error(), message);
}

/* An Intel PT recording of the software source, as the recorder writes it. */
#define PT_HEAD \
	"{\"format\":\"hwtrecord\",\"version\":1,\"arch\":\"x86_64\"," \
	"\"trace_format\":\"intel-pt\",\"source\":\"valgrind\","
#define PT_CONFIG \
	"\"pt\":{\"cpu\":{\"vendor\":\"intel\",\"family\":6,\"model\":142," \
	"\"stepping\":10},\"mtc_freq\":3,\"nom_freq\":24," \
	"\"cpuid_0x15_eax\":2,\"cpuid_0x15_ebx\":\"0xc8\"," \
	"\"cpuid_0x14_ebx\":15,\"cpuid_0x14_ecx\":\"0x80000007\"," \
	"\"tsc\":true,\"return_compression\":false,\"psb_period\":4096," \
	"\"address_filter\":\"filter 0x401000/0x100@/bin/true\"},"
#define PT_PROCESS \
	"\"process\":{\"pid\":4242,\"executable\":\"/bin/true\"," \
	"\"argv\":[\"/bin/true\",\"--version\"]},"

START_TEST(intel_pt_manifest_gives_every_field)
{
	ck_assert_int_eq(decode(PT_HEAD PT_CONFIG PT_PROCESS
		"\"threads\":[{\"tid\":4242,\"stream\":\"trace/4242.pt\","
		"\"trace_start\":128,\"stream_size\":9000,\"stream_crc32\":\"0xdeadbeef\"},"
		"{\"tid\":4243,\"stream\":\"trace/4243.pt\"}],"
		"\"end\":{\"state\":\"signaled\",\"signal\":11},"
		"\"core\":\"core\",\"files\":{\"sideband.jsonl\":{\"size\":10,"
		"\"crc32\":77}},\"complete\":true}"), 0);
	ck_assert_int_eq(info.version, 1);
	ck_assert_str_eq(info.arch, "x86_64");
	ck_assert_str_eq(info.trace_format, "intel-pt");
	ck_assert_str_eq(info.source, "valgrind");
	ck_assert_str_eq(info.pt.vendor, "intel");
	ck_assert_uint_eq(info.pt.family, 6);
	ck_assert_uint_eq(info.pt.model, 142);
	ck_assert_uint_eq(info.pt.stepping, 10);
	ck_assert_uint_eq(info.pt.mtc_freq, 3);
	ck_assert_uint_eq(info.pt.nom_freq, 24);
	ck_assert_uint_eq(info.pt.cpuid_0x15_eax, 2);
	ck_assert_uint_eq(info.pt.cpuid_0x15_ebx, 0xc8);
	ck_assert_uint_eq(info.pt.cpuid_0x14_ebx, 15);
	ck_assert_uint_eq(info.pt.cpuid_0x14_ecx, 0x80000007u);
	ck_assert(info.pt.tsc);
	ck_assert(!info.pt.return_compression);
	ck_assert_uint_eq(info.pt.psb_period, 4096);
	ck_assert_str_eq(info.pt.address_filter, "filter 0x401000/0x100@/bin/true");
	ck_assert_int_eq(info.pid, 4242);
	ck_assert_str_eq(info.executable, "/bin/true");
	ck_assert_uint_eq(info.argc, 2);
	ck_assert_str_eq(info.argv[0], "/bin/true");
	ck_assert_str_eq(info.argv[1], "--version");
	ck_assert_ptr_null(info.argv[2]);
	ck_assert_uint_eq(info.nthreads, 2);
	ck_assert_uint_eq(info.threads[0].tid, 4242);
	ck_assert_str_eq(info.threads[0].stream, "trace/4242.pt");
	ck_assert_uint_eq(info.threads[0].trace_start, 128);
	ck_assert(info.threads[0].has_stream_check);
	ck_assert_uint_eq(info.threads[0].stream_size, 9000);
	ck_assert_uint_eq(info.threads[0].stream_crc32, 0xdeadbeefu);
	ck_assert_ptr_null(info.threads[0].etm);
	ck_assert_uint_eq(info.threads[1].tid, 4243);
	ck_assert_uint_eq(info.threads[1].trace_start, 0);
	ck_assert(!info.threads[1].has_stream_check);
	ck_assert_int_eq(info.end.state, hwtr_end_signaled);
	ck_assert_int_eq(info.end.code, 11);
	ck_assert_ptr_null(info.end_reason);
	ck_assert_str_eq(info.core, "core");
	ck_assert_uint_eq(info.nfiles, 1);
	ck_assert_str_eq(info.files[0].name, "sideband.jsonl");
	ck_assert_uint_eq(info.files[0].size, 10);
	ck_assert_uint_eq(info.files[0].crc32, 77);
	ck_assert(info.complete);
}
END_TEST

START_TEST(end_states_and_defaults)
{
	/* No end: still running; no argv; a live recording with no thread. */
	ck_assert_int_eq(decode(PT_HEAD PT_CONFIG "\"process\":{\"pid\":1},"
				"\"threads\":[]}"), 0);
	ck_assert_int_eq(info.end.state, hwtr_end_running);
	ck_assert_uint_eq(info.argc, 0);
	ck_assert_ptr_null(info.argv[0]);
	ck_assert_ptr_null(info.executable);
	ck_assert_ptr_null(info.core);
	ck_assert_uint_eq(info.nthreads, 0);
	ck_assert(!info.complete);

	ck_assert_int_eq(decode(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[],"
				"\"end\":{\"state\":\"exited\",\"exit_code\":3}}"), 0);
	ck_assert_int_eq(info.end.state, hwtr_end_exited);
	ck_assert_int_eq(info.end.code, 3);
	ck_assert(!info.end.has_fault_address);

	/* A fault's address: any 64-bit value, as a hex string. */
	ck_assert_int_eq(decode(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[],"
				"\"end\":{\"state\":\"signaled\",\"signal\":11,"
				"\"fault_address\":\"0xffffffffff600008\"}}"), 0);
	ck_assert_int_eq(info.end.code, 11);
	ck_assert(info.end.has_fault_address);
	ck_assert_uint_eq(info.end.fault_address, 0xffffffffff600008ull);
	refused(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[],\"end\":{\"state\":"
		"\"signaled\",\"signal\":11,\"fault_address\":\"8\"}}",
		hwtr_err_format, FILE_NAME ": field \"end.fault_address\" is \"8\", "
		"expected 0x and 1 to 16 lower-case hex digits");
	refused(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[],\"end\":{\"state\":"
		"\"signaled\",\"signal\":11,\"fault_address\":"
		"\"0x10000000000000000\"}}",
		hwtr_err_format, FILE_NAME ": field \"end.fault_address\" is "
		"\"0x10000000000000000\", expected 0x and 1 to 16 lower-case hex "
		"digits");
	refused(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[],\"end\":{\"state\":"
		"\"signaled\",\"signal\":11,\"fault_address\":8}}",
		hwtr_err_format, FILE_NAME ": field \"fault_address\" is not a string");

	ck_assert_int_eq(decode(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[],"
				"\"end\":{\"state\":\"aborted\",\"signal\":9,"
				"\"reason\":\"disk full\"}}"), 0);
	ck_assert_int_eq(info.end.state, hwtr_end_aborted);
	ck_assert_int_eq(info.end.code, 9);
	ck_assert_str_eq(info.end_reason, "disk full");

	ck_assert_str_eq(end_state_name(hwtr_end_exited), "exited");
	ck_assert_str_eq(end_state_name(hwtr_end_signaled), "signaled");
	ck_assert_str_eq(end_state_name(hwtr_end_aborted), "aborted");
	ck_assert_str_eq(end_state_name(hwtr_end_running), "running");
}
END_TEST

/* An ETMv4 source of an OpenCSD snapshot, one context of it. */
#define ETM_THREAD(tid, ctx) \
	"{\"tid\":" #tid ",\"stream\":\"trace/cstrace.bin\"," \
	"\"etm\":{\"protocol\":\"etm4\",\"trace_id\":16,\"formatted\":true," \
	"\"frame\":{\"mem_align\":true,\"fsyncs\":false,\"hsyncs\":false}," \
	"\"arch_version\":\"0x00000864\",\"profile\":\"A\",\"source\":\"ETM_0\"," \
	"\"core\":\"cpu_0\",\"core_type\":\"Cortex-A53\",\"cpu\":2," \
	"\"context_id\":" #ctx ",\"regs\":{\"TRCCONFIGR\":\"0x000000c1\"," \
	"\"TRCTRACEIDR\":\"0x00000010\",\"TRCIDR0\":\"0x28000ea1\"," \
	"\"TRCIDR2\":\"0x00000488\",\"TRCIDR8\":\"0x00000000\"}}}"
#define ETM_HEAD \
	"{\"format\":\"hwtrecord\",\"version\":2,\"arch\":\"aarch64\"," \
	"\"trace_format\":\"etm4\",\"source\":\"opencsd-snapshot\"," \
	"\"process\":{},"

START_TEST(etm_manifest_gives_each_trace_unit)
{
	ck_assert_int_eq(decode(ETM_HEAD "\"threads\":[" ETM_THREAD(100, 100) ","
				ETM_THREAD(200, 200) "],\"complete\":true}"), 0);
	ck_assert_int_eq(info.version, 2);
	ck_assert_str_eq(info.trace_format, "etm4");
	ck_assert_uint_eq(info.nthreads, 2);
	ck_assert_ptr_nonnull(info.threads[1].etm);
	{
		const struct hwtr_etm_config *e = info.threads[1].etm;

		ck_assert(!e->ete);
		ck_assert_uint_eq(e->trace_id, 16);
		ck_assert(e->formatted);
		ck_assert_uint_eq(e->frame_flags, HWTR_ETM_FRAME_MEM_ALIGN);
		ck_assert_uint_eq(e->arch_version, 0x864);
		ck_assert_int_eq(e->profile, 'A');
		ck_assert_str_eq(e->source, "ETM_0");
		ck_assert_str_eq(e->core, "cpu_0");
		ck_assert_str_eq(e->core_type, "Cortex-A53");
		ck_assert_int_eq(e->cpu, 2);
		ck_assert(e->has_context_id);
		ck_assert_uint_eq(e->context_id, 200);
		ck_assert_uint_eq(e->trcconfigr, 0xc1);
		ck_assert_uint_eq(e->trctraceidr, 0x10);
		ck_assert_uint_eq(e->trcidr[0], 0x28000ea1u);
		ck_assert_uint_eq(e->trcidr[2], 0x488);
		ck_assert_uint_eq(e->trcidr[1], 0);	/* not given */
	}
}
END_TEST

START_TEST(broken_manifests_are_refused_naming_the_field)
{
	refused("[]", hwtr_err_format, FILE_NAME ": not a JSON object");
	refused("{\"version\":1}", hwtr_err_format,
		FILE_NAME ": field \"format\" is missing");
	refused("{\"format\":\"perf\",\"version\":1}", hwtr_err_format,
		FILE_NAME ": field \"format\" is \"perf\", not \"hwtrecord\"");
	refused("{\"format\":\"hwtrecord\"}", hwtr_err_format,
		FILE_NAME ": field \"version\" is missing");
	refused("{\"format\":\"hwtrecord\",\"version\":\"1\"}", hwtr_err_format,
		FILE_NAME ": field \"version\" is not an integer");
	refused("{\"format\":\"hwtrecord\",\"version\":3}", hwtr_err_version,
		FILE_NAME ": format version 3 is not supported (this reader "
		"reads version 1 to 2)");
	refused("{\"format\":\"hwtrecord\",\"version\":1,\"arch\":\"x86_64\","
		"\"trace_format\":\"etm4\",\"source\":\"x\"}", hwtr_err_format,
		FILE_NAME ": trace format \"etm4\" is not supported by this reader "
		"in version 1 (it reads \"intel-pt\")");
	refused("{\"format\":\"hwtrecord\",\"version\":2,\"arch\":\"x86_64\","
		"\"trace_format\":\"etm4\",\"source\":\"x\"}", hwtr_err_format,
		FILE_NAME ": an etm4 recording of arch \"x86_64\" (expected "
		"\"aarch64\" or \"arm\")");
	refused(PT_HEAD PT_PROCESS "\"threads\":[]}", hwtr_err_format,
		FILE_NAME ": field \"pt\" is missing (an intel-pt recording needs "
		"its trace configuration)");
	refused(PT_HEAD "\"pt\":{\"cpu\":{\"model\":256}}," PT_PROCESS
		"\"threads\":[]}", hwtr_err_format,
		FILE_NAME ": field \"pt.model\" is out of range");
	refused(PT_HEAD "\"pt\":{\"cpu\":{},\"tsc\":1}," PT_PROCESS
		"\"threads\":[]}", hwtr_err_format,
		FILE_NAME ": field \"tsc\" is not true or false");
	refused(PT_HEAD PT_CONFIG "\"threads\":[]}", hwtr_err_format,
		FILE_NAME ": field \"process\" is missing or not an object");
	refused(PT_HEAD PT_CONFIG "\"process\":{\"argv\":[\"a\",2]},"
		"\"threads\":[]}", hwtr_err_format,
		FILE_NAME ": process.argv[1] is not a string");
	refused(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":{}}", hwtr_err_format,
		FILE_NAME ": field \"threads\" is missing or not an array");
	refused(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[{\"tid\":1,"
		"\"stream\":\"a\"},{\"stream\":\"b\"}]}", hwtr_err_format,
		"threads[1]: " FILE_NAME ": field \"tid\" is missing");
	refused(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[{\"tid\":4294967296,"
		"\"stream\":\"a\"}]}", hwtr_err_format,
		FILE_NAME ": threads[0].tid is out of range");
	refused(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[{\"tid\":1,"
		"\"stream\":\"../../etc/passwd\"}]}", hwtr_err_format,
		FILE_NAME ": threads[0].stream \"../../etc/passwd\" leaves the "
		"recording directory");
	refused(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[{\"tid\":1,"
		"\"stream\":\"a\",\"stream_size\":5}]}", hwtr_err_format,
		FILE_NAME ": threads[0] has only one of \"stream_size\" and "
		"\"stream_crc32\"");
	refused(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[{\"tid\":1,"
		"\"stream\":\"a\"},{\"tid\":2,\"stream\":\"b\"},{\"tid\":1,"
		"\"stream\":\"c\"}]}", hwtr_err_format,
		FILE_NAME ": threads[0] and threads[2] are both thread 1");
	refused(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[{\"tid\":1,"
		"\"stream\":\"a\"},{\"tid\":2,\"stream\":\"a\"}]}", hwtr_err_format,
		FILE_NAME ": threads[0] and threads[1] both name the trace of "
		"stream \"a\"");
	refused(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[],"
		"\"end\":{\"state\":\"dead\"}}", hwtr_err_format,
		FILE_NAME ": field \"end.state\" is \"dead\", expected \"exited\", "
		"\"signaled\", \"aborted\" or \"running\"");
	refused(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[],\"core\":\"/core\"}",
		hwtr_err_format, FILE_NAME ": field \"core\" (\"/core\") leaves the "
		"recording directory");
	refused(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[],\"files\":{\"x\":"
		"{\"size\":1}}}", hwtr_err_format,
		"files.\"x\": " FILE_NAME ": field \"crc32\" is missing");
	refused(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[],\"files\":{\"x\":"
		"{\"size\":1,\"crc32\":4294967296}}}", hwtr_err_format,
		FILE_NAME ": files.\"x\".crc32 is not a 32-bit value");
	refused(PT_HEAD PT_CONFIG PT_PROCESS "\"threads\":[],\"complete\":true}",
		hwtr_err_format, FILE_NAME ": field \"threads\" is empty, but the "
		"recording is finished: it names no trace");
}
END_TEST

START_TEST(broken_etm_units_are_refused_naming_the_field)
{
	refused(ETM_HEAD "\"threads\":[{\"tid\":1,\"stream\":\"a\"}]}",
		hwtr_err_format, FILE_NAME ": threads[0].etm is missing or not an "
		"object (an ETM recording needs each source's trace unit)");
	refused(ETM_HEAD "\"threads\":[{\"tid\":1,\"stream\":\"a\",\"etm\":"
		"{\"protocol\":\"ptm\",\"trace_id\":1}}]}", hwtr_err_format,
		FILE_NAME ": threads[0].etm.protocol is \"ptm\"; only ETMv4 "
		"(\"etm4\") and ETE (\"ete\") are decoded");
	refused(ETM_HEAD "\"threads\":[{\"tid\":1,\"stream\":\"a\",\"etm\":"
		"{\"protocol\":\"etm4\",\"trace_id\":112}}]}", hwtr_err_format,
		FILE_NAME ": threads[0].etm.trace_id 112 is not a CoreSight trace "
		"ID (1 to 0x6f, or 0 for a raw stream)");
	refused(ETM_HEAD "\"threads\":[{\"tid\":1,\"stream\":\"a\",\"etm\":"
		"{\"protocol\":\"etm4\",\"trace_id\":0,\"formatted\":true}}]}",
		hwtr_err_format, FILE_NAME ": threads[0].etm.trace_id 0 is not a "
		"CoreSight trace ID (1 to 0x6f)");
	refused(ETM_HEAD "\"threads\":[{\"tid\":1,\"stream\":\"a\",\"etm\":"
		"{\"protocol\":\"etm4\",\"trace_id\":1,\"formatted\":true}}]}",
		hwtr_err_format, FILE_NAME ": threads[0].etm.frame is missing or "
		"not an object (a formatted stream needs its framing)");
	refused(ETM_HEAD "\"threads\":[{\"tid\":1,\"stream\":\"a\",\"etm\":"
		"{\"protocol\":\"etm4\",\"trace_id\":1,\"arch_version\":\"0x900\"}}]}",
		hwtr_err_format, FILE_NAME ": threads[0].etm.arch_version 0x900 is "
		"not 0x700, 0x800, 0x803 or 0x864");
	refused(ETM_HEAD "\"threads\":[{\"tid\":1,\"stream\":\"a\",\"etm\":"
		"{\"protocol\":\"etm4\",\"trace_id\":1,\"profile\":\"X\"}}]}",
		hwtr_err_format, FILE_NAME ": threads[0].etm.profile is \"X\", "
		"expected \"A\", \"R\" or \"M\"");
	refused(ETM_HEAD "\"threads\":[{\"tid\":1,\"stream\":\"a\",\"etm\":"
		"{\"protocol\":\"etm4\",\"trace_id\":1,\"regs\":{\"TRCIDR0\":"
		"\"0x100000000\"}}}]}", hwtr_err_format,
		FILE_NAME ": threads[0].etm.regs.TRCIDR0 is not a 32-bit value");
	refused(ETM_HEAD "\"threads\":[{\"tid\":1,\"stream\":\"a\",\"etm\":"
		"{\"protocol\":\"etm4\",\"trace_id\":1,\"regs\":{\"TRCIDR0\":1}}}]}",
		hwtr_err_format, FILE_NAME ": threads[0].etm.regs needs TRCCONFIGR, "
		"TRCTRACEIDR, TRCIDR0 and TRCIDR2");
	/* Two threads for one source's context: its trace twice. */
	refused(ETM_HEAD "\"threads\":[" ETM_THREAD(100, 7) "," ETM_THREAD(200, 7)
		"]}", hwtr_err_format, FILE_NAME ": threads[0] and threads[1] both "
		"name the trace of stream \"trace/cstrace.bin\" under the same "
		"trace ID and context");
}
END_TEST

/* What the writer puts down for INFO has the fields the format names, with
 * the values given (checked by reading them out of the JSON, not back
 * through manifest_decode). */
START_TEST(encoding_writes_the_format)
{
	struct hwtr_thread_info threads[1] = {
		{ .tid = 77, .stream = "trace/77.pt", .trace_start = 5 },
	};
	const char *argv[] = { "./app", "x", NULL };
	struct hwtr_recording_info in = {
		.version = 1, .arch = "x86_64", .trace_format = "intel-pt",
		.source = "valgrind", .pid = 77, .executable = "./app",
		.argc = 2, .argv = argv, .nthreads = 1, .threads = threads,
		.end = { hwtr_end_exited, 4 }, .complete = true,
	};
	json_t *o, *t;

	in.pt.family = 6;
	in.pt.psb_period = 4096;
	in.pt.tsc = true;
	o = manifest_encode(&in);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_string_value(json_object_get(o, "format")), "hwtrecord");
	ck_assert_int_eq(json_integer_value(json_object_get(o, "version")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(o, "source")), "valgrind");
	t = json_object_get(o, "pt");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(t, "cpu"),
							   "vendor")), "unknown");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(t, "cpu"),
							    "family")), 6);
	ck_assert_int_eq(json_integer_value(json_object_get(t, "psb_period")), 4096);
	ck_assert(json_is_true(json_object_get(t, "tsc")));
	t = json_object_get(o, "process");
	ck_assert_int_eq(json_integer_value(json_object_get(t, "pid")), 77);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(t, "argv"),
							  1)), "x");
	t = json_array_get(json_object_get(o, "threads"), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(t, "tid")), 77);
	ck_assert_str_eq(json_string_value(json_object_get(t, "stream")), "trace/77.pt");
	ck_assert_int_eq(json_integer_value(json_object_get(t, "trace_start")), 5);
	t = json_object_get(o, "end");
	ck_assert_str_eq(json_string_value(json_object_get(t, "state")), "exited");
	ck_assert_int_eq(json_integer_value(json_object_get(t, "exit_code")), 4);
	ck_assert_ptr_null(json_object_get(t, "signal"));
	ck_assert(json_is_true(json_object_get(o, "complete")));
	ck_assert_ptr_null(json_object_get(o, "core"));
	json_decref(o);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("documents");

	tcase_add_checked_fixture(tc, NULL, release);
	tcase_add_test(tc, intel_pt_manifest_gives_every_field);
	tcase_add_test(tc, end_states_and_defaults);
	tcase_add_test(tc, etm_manifest_gives_each_trace_unit);
	tcase_add_test(tc, broken_manifests_are_refused_naming_the_field);
	tcase_add_test(tc, broken_etm_units_are_refused_naming_the_field);
	tcase_add_test(tc, encoding_writes_the_format);
	return check_run_tcase("manifest", tc);
}
