--[[
job_submit.lua for colocated nodes (the role of ACK's k8s_resource_completion).

In GRES mode the copilot sets each shared node's k8scpu / k8smemory GRES counts to what Kubernetes does not hold;
in hold mode (the default) the copilot's holds take the same GRES out of the counts. Either way the counts only
tell jobs the truth if every Slurm job consumes them, so every job gets gres:k8scpu:<cpus>,gres:k8smemory:<MB>
per node, derived from its own CPU and memory request. Memory is in MB, as everywhere in Slurm. The GRES are
set through job_desc.gres, without a prefix: slurmctld prepends its own (gres: on 22.05, gres/ from 24.11 on), and
each release refuses the other's form in tres_per_node ("Invalid Trackable RESource (TRES) specification"). So the
one script works on 22.05, 24.11 and 26.05.
Install it next to slurm.conf (Slurm looks for job_submit.lua there) and set JobSubmitPlugins=lua.
--]]

-- Jobs without a memory request get DefMemPerCPU (or DefMemPerNode) from slurm.conf, so k8smemory must follow
-- the same default; it is read from the slurm.conf beside this script, which is where Slurm loads it from.
local function read_default_memory()
  local dir = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
  local f = io.open(dir .. "/slurm.conf", "r")
  if f == nil then return nil, nil end
  local per_cpu, per_node
  for line in f:lines() do
    local l = line:lower()
    per_cpu = tonumber(l:match("^%s*defmempercpu%s*=%s*(%d+)")) or per_cpu
    per_node = tonumber(l:match("^%s*defmempernode%s*=%s*(%d+)")) or per_node
  end
  f:close()
  return per_cpu, per_node
end

local DEF_MEM_PER_CPU, DEF_MEM_PER_NODE = read_default_memory()

-- The partition colocate keeps its holds in (colocate.copilot.holds-partition); the operator renders its name here.
local HOLDS_PARTITION = "holds"

local function is_set(v, no_val)
  return v ~= nil and v ~= no_val and v ~= 0
end

-- tres_per_node is per node, so a multi-node job asks each node for its share, rounded up: a node must never
-- run more of the job than the k8s GRES it consumed there.
local function k8s_request(job)
  local cpt = is_set(job.cpus_per_task, slurm.NO_VAL16) and job.cpus_per_task or 1
  local nodes = is_set(job.min_nodes, slurm.NO_VAL) and job.min_nodes or 1
  local tasks_per_node = is_set(job.ntasks_per_node, slurm.NO_VAL16) and job.ntasks_per_node or nil
  local tasks = is_set(job.num_tasks, slurm.NO_VAL) and job.num_tasks or (tasks_per_node or 1) * nodes
  local total = math.max(cpt * tasks, is_set(job.min_cpus, slurm.NO_VAL) and job.min_cpus or 0)
  local cpus = tasks_per_node and tasks_per_node * cpt or math.ceil(total / nodes)
  -- --mincpus arrives as pn_min_cpus, a per-node floor that Slurm allocates even above the task count.
  if is_set(job.pn_min_cpus, slurm.NO_VAL16) and job.pn_min_cpus > cpus then cpus = job.pn_min_cpus end

  local mem
  if job.min_mem_per_node ~= nil then
    mem = job.min_mem_per_node
  elseif job.min_mem_per_cpu ~= nil then
    mem = job.min_mem_per_cpu * cpus
  elseif DEF_MEM_PER_CPU ~= nil then
    mem = DEF_MEM_PER_CPU * cpus
  else
    mem = DEF_MEM_PER_NODE
  end
  -- --mem=0, or no default at all, means "all of the node's memory", which is not known at submission.
  if mem == 0 then mem = nil end
  return cpus, mem
end

function slurm_job_submit(job_desc, part_list, submit_uid)
  -- The copilot's holds (Kubernetes' share, in hold mode) carry the k8s GRES the copilot chose, or on purpose none
  -- (while an earlier GRES-mode run left the counts lowered): the copilot alone decides them. Only in the holds
  -- partition itself (a list such as "holds,debug" is no hold), which RootOnly=YES closes to all but root and
  -- SlurmUser; slurmctld checks that after this script, so no user can borrow the exemption.
  if job_desc.partition == HOLDS_PARTITION and job_desc.name == "colocate-hold" and job_desc.comment ~= nil
      and job_desc.comment:find("colocate:", 1, true) == 1 then
    return slurm.SUCCESS
  end
  local current = job_desc.tres_per_node
  -- A job that names k8s GRES itself (the copilot's own share holders, or a user who knows better) is left alone.
  if current ~= nil and current:find("k8s", 1, true) then
    return slurm.SUCCESS
  end
  local cpus, mem = k8s_request(job_desc)
  local add = string.format("k8scpu:%d", cpus)
  if mem ~= nil then
    add = add .. string.format(",k8smemory:%d", mem)
  else
    slurm.log_info("job_submit.lua: uid %d: memory request unknown, no k8smemory added", submit_uid)
  end
  -- job_desc.gres is written to tres_per_node with the release's prefix on each item; one the current value has
  -- already is not doubled.
  if current == nil or current == "" then
    job_desc.gres = add
  else
    job_desc.gres = current .. "," .. add
  end
  slurm.log_info("job_submit.lua: uid %d: tres_per_node=%s", submit_uid, job_desc.tres_per_node)
  return slurm.SUCCESS
end

-- A job's k8s GRES are fixed at submission; the copilot cross-checks gres_used against alloc_cpus/alloc_memory.
function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  return slurm.SUCCESS
end

return slurm.SUCCESS
