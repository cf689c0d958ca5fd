-- Up Migration

-- A member is shown by name (who decided, who granted, who started a run): one name, one member
-- of the workspace, whatever case it is written in. Names shared today get " (2)", " (3)"… by age.
do $$
declare
  shared record;
  n int;
begin
  for shared in
    select id, workspace_id, name from (
      select id, workspace_id, name, created_at,
        row_number() over (partition by workspace_id, lower(name) order by created_at, id) as nth
      from members
    ) ranked
    where nth > 1
    order by created_at, id
  loop
    n := 2;
    while exists (
      select 1 from members
      where workspace_id = shared.workspace_id and lower(name) = lower(shared.name || ' (' || n || ')')
    ) loop
      n := n + 1;
    end loop;
    update members set name = shared.name || ' (' || n || ')' where id = shared.id;
  end loop;
end $$;
create unique index members_name on members (workspace_id, lower(name));

-- Down Migration
drop index members_name;
