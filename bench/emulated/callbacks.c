/* bench: a QEMU plugin whose callbacks do nothing, registered as
 * counterlab's are (one on every run of a block, one on every memory
 * access, no registers): what QEMU itself costs to run such a plugin,
 * before the plugin does any work (bench/emulated/run.sh). */
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static void on_tb(unsigned int vcpu_index, void *udata)
{
	(void)vcpu_index, (void)udata;
}

static void on_access(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr,
		      void *udata)
{
	(void)vcpu_index, (void)info, (void)vaddr, (void)udata;
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	for (size_t i = 0; i < qemu_plugin_tb_n_insns(tb); i++)
		qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i), on_access,
						 QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb, QEMU_PLUGIN_CB_NO_REGS, NULL);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	(void)info, (void)argc, (void)argv;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	return 0;
}
