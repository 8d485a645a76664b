/* commands.h: the subcommands of hwtrec, one file each. */
#ifndef HWTREC_COMMANDS_H
#define HWTREC_COMMANDS_H

/* Each takes argv with argv[0] = the subcommand name, returns the exit code. */
int hwtrec_info_main(int argc, char **argv);
int hwtrec_dump_main(int argc, char **argv);
int hwtrec_record_main(int argc, char **argv);
int hwtrec_replay_main(int argc, char **argv);
int hwtrec_gdb_main(int argc, char **argv);
int hwtrec_import_main(int argc, char **argv);
int hwtrec_export_main(int argc, char **argv);
int hwtrec_pack_main(int argc, char **argv);
/* `hwtrec pack`'s work, also `hwtrec record --pack`'s: 0 when every file
 * with a build-id is in REC's objects/. */
int hwtrec_pack_recording(const char *cmd, const char *rec,
			  const char *const *debug_dirs);

#endif
