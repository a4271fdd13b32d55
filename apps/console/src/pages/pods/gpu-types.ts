import { useQuery } from '@tanstack/react-query';
import type { GpuTypeView } from '@app/contracts';
import { api } from '../../api';

export function useGpuTypes() {
  return useQuery({ queryKey: ['catalog', 'gpus'], queryFn: () => api<GpuTypeView[]>('/v2/catalog/gpus') });
}
